//! Nothing outside the root is read: links out, link loops, paths out, and an exchange race.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use editkit_search::Search;

use crate::support::{Tree, files_of, search, skipped_of};

const SENTINEL: &str = "SENTINEL_OUTSIDE_ROOT";

fn tree_with_outside() -> Tree {
    let tree = Tree::new(&[("inside.txt", "needle inside\n")]);
    fs::write(tree.out.join("secret.txt"), format!("needle {SENTINEL}\n")).unwrap();
    fs::create_dir_all(tree.out.join("dir")).unwrap();
    fs::write(tree.out.join("dir/deep.txt"), format!("needle {SENTINEL}\n")).unwrap();
    tree
}

#[test]
fn a_symlink_out_of_the_root_is_never_followed_and_is_reported() {
    let tree = tree_with_outside();
    tree.link(tree.out.join("secret.txt"), "abs_file_link");
    tree.link("../outside/secret.txt", "rel_file_link");
    tree.link(&tree.out, "dir_link");
    fs::create_dir_all(tree.root.join("sub")).unwrap();
    tree.link("../../outside/dir", "sub/nested_link");
    for follow in [false, true] {
        let found = search(&tree, "needle", ".", |b| {
            b.follow_links(follow).hidden(true);
        });
        let json = serde_json::to_string(&found).unwrap();
        assert!(!json.contains(SENTINEL), "{json}");
        assert_eq!(files_of(&found), ["inside.txt"]);
        assert_eq!(
            skipped_of(&found),
            [
                ("abs_file_link", "outside_workspace"),
                ("dir_link", "outside_workspace"),
                ("rel_file_link", "outside_workspace"),
                ("sub/nested_link", "outside_workspace"),
            ]
        );
    }
}

#[test]
fn searching_a_path_outside_the_root_is_refused() {
    let tree = tree_with_outside();
    tree.link(&tree.out, "dir_link");
    let workspace = tree.workspace();
    let search = Search::builder("needle").build().unwrap();
    for path in ["../outside", "dir_link", "dir_link/secret.txt", "/etc", "../root/../outside/secret.txt"] {
        let err = search.run(&workspace, path).unwrap_err();
        assert_eq!(err.kind(), "outside_workspace", "{path}: {err}");
    }
    let err = search.run(&workspace, ".git").unwrap_err();
    assert_eq!(err.kind(), "blocked");
}

#[test]
fn links_inside_the_root_are_searched_only_when_following() {
    let tree = Tree::new(&[("real/a.txt", "needle\n")]);
    tree.link("real/a.txt", "file_link");
    tree.link("real", "dir_link");
    tree.link("../real/a.txt", "real/up_link");
    assert_eq!(files_of(&search(&tree, "needle", ".", |_| {})), ["real/a.txt"]);
    let found = search(&tree, "needle", ".", |b| {
        b.follow_links(true);
    });
    // Linked directories are never entered; linked files are reported under the link's path.
    assert_eq!(files_of(&found), ["file_link", "real/a.txt", "real/up_link"]);
}

#[test]
fn a_link_loop_is_reported_not_followed() {
    let tree = Tree::new(&[("a.txt", "needle\n")]);
    tree.link("loop_b", "loop_a");
    tree.link("loop_a", "loop_b");
    tree.link(".", "self");
    let found = search(&tree, "needle", ".", |b| {
        b.follow_links(true);
    });
    assert_eq!(files_of(&found), ["a.txt"]);
    assert_eq!(skipped_of(&found), [("loop_a", "symlink_loop"), ("loop_b", "symlink_loop")]);
}

fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}

#[test]
fn a_directory_exchanged_with_an_outside_link_mid_walk_is_never_entered() {
    let tree = Tree::new(&[]);
    // Enough entries around the exchanged directory that walks are often mid-way when it flips.
    for i in 0..40 {
        tree.write(&format!("a{i:02}/f.txt"), b"needle inside\n");
    }
    tree.write("m/swap/f.txt", b"needle inside swap\n");
    tree.write("m/swap/deeper/g.txt", b"needle inside deeper\n");
    for i in 0..40 {
        tree.write(&format!("z{i:02}.txt"), b"needle inside\n");
    }
    fs::write(tree.out.join("f.txt"), format!("needle {SENTINEL}\n")).unwrap();
    fs::create_dir_all(tree.out.join("deeper")).unwrap();
    fs::write(tree.out.join("deeper/g.txt"), format!("needle {SENTINEL}\n")).unwrap();
    tree.link(&tree.out, "m/swaplink");
    let (a, b) = (tree.root.join("m/swap"), tree.root.join("m/swaplink"));
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&a, &b);
                swaps += 1;
            }
            swaps
        })
    };
    let workspace = tree.workspace();
    let mut saw_swap_inside = 0;
    let mut saw_skip = 0;
    for round in 0..400 {
        let search = Search::builder("needle").threads(1 + round % 3).hidden(true).build().unwrap();
        let path = if round % 4 == 3 { "m" } else { "." };
        let found = search.run(&workspace, path).unwrap();
        let json = serde_json::to_string(&found).unwrap();
        assert!(!json.contains(SENTINEL), "round {round} read outside the root: {json}");
        saw_swap_inside += usize::from(json.contains("inside swap"));
        saw_skip += usize::from(found.skipped.iter().any(|s| s.reason.as_str() == "outside_workspace"));
        // Searching the exchanged path itself either searches the inside or is refused.
        if let Ok(found) = search.run(&workspace, "m/swap") {
            let json = serde_json::to_string(&found).unwrap();
            assert!(!json.contains(SENTINEL), "round {round} read outside the root: {json}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 0);
    assert!(saw_swap_inside > 0, "the real directory was never searched");
    assert!(saw_skip > 0, "the outside link was never reported");
    assert_eq!(fs::read_to_string(tree.out.join("f.txt")).unwrap(), format!("needle {SENTINEL}\n"));
}
