//! `apply_patch` and `editkit_patch::apply` run the one recover → parse → plan → commit
//! sequence (`editkit_patch::apply_parsed`): the same patch gives the same files, diff and
//! refusal through either.

use serde_json::json;

const FILES: [(&str, &str); 3] = [("a.py", "a = 1\n"), ("b.py", "b = 1\n"), ("gone.txt", "bye\n")];

fn open() -> (tempfile::TempDir, editkit::Toolkit) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in FILES {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let toolkit = editkit::Toolkit::open(dir.path(), editkit::ToolkitOptions::default()).unwrap();
    (dir, toolkit)
}

fn tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn the_facade_and_the_patch_crate_apply_a_patch_alike() {
    let patches = [
        "*** Begin Patch\n*** Update File: a.py\n@@\n-a = 1\n+a = 2\n*** Add File: c.py\n+c = 1\n*** Delete File: gone.txt\n*** End Patch\n",
        // A hunk not found: nothing changes through either.
        "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** Update File: b.py\n-b = 9\n+b = 2\n*** End Patch\n",
    ];
    for patch in patches {
        for dry_run in [false, true] {
            let (facade_dir, facade) = open();
            let (crate_dir, plain) = open();
            let through_facade =
                editkit::tools::call(&facade, "apply_patch", json!({"patch": patch, "dry_run": dry_run}));
            let options = editkit::patch::ApplyOptions { dry_run, ..Default::default() };
            let through_crate = editkit::patch::apply(plain.workspace(), patch, &options);
            assert_eq!(tree(facade_dir.path()), tree(crate_dir.path()), "{patch} dry_run={dry_run}");
            match through_crate {
                Ok(applied) => {
                    assert_eq!(through_facade["ok"], true, "{through_facade}");
                    assert_eq!(through_facade["diff"], applied.diff.as_str());
                    assert_eq!(through_facade["dry_run"], dry_run);
                }
                Err(err) => {
                    assert_eq!(through_facade["error"]["kind"], err.kind(), "{through_facade}");
                    assert_eq!(tree(facade_dir.path()), FILES.map(|(p, t)| (p.to_owned(), t.as_bytes().to_vec())));
                }
            }
        }
    }
}
