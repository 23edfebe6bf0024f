//! Blocked patterns follow `.gitignore` semantics; the default list covers common secret files.

use editkit_vfs::{ErrorKind, Policy, Workspace};

fn open(blocked: &[&str]) -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    let mut policy = Policy::default();
    policy.blocked.extend(blocked.iter().map(|s| (*s).to_owned()));
    let workspace = Workspace::builder(tmp.path(), editkit_vfs::ambient_authority()).policy(policy).open().unwrap();
    (tmp, workspace)
}

fn write(tmp: &tempfile::TempDir, rel: &str) {
    let path = tmp.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "x\n").unwrap();
}

/// The blocking pattern for `rel`, or `None` when it reads.
fn blocked_by(workspace: &Workspace, rel: &str) -> Option<String> {
    match workspace.read(rel) {
        Ok(_) => None,
        Err(editkit_vfs::Error::Blocked { pattern, .. }) => Some(pattern),
        Err(other) => panic!("{rel}: expected a read or `blocked`, got {other}"),
    }
}

#[test]
fn a_trailing_slash_blocks_a_directory_and_everything_in_it_at_any_depth() {
    let (tmp, workspace) = open(&["secrets/"]);
    for rel in ["secrets/x", "a/secrets/y", "a/b/secrets/c/d.txt"] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel).as_deref(), Some("secrets/"), "{rel}");
    }
    write(&tmp, "a/not-secrets/z");
    write(&tmp, "secretsX/z");
    assert_eq!(blocked_by(&workspace, "a/not-secrets/z"), None);
    assert_eq!(blocked_by(&workspace, "secretsX/z"), None);
    assert_eq!(workspace.list_dir("a").unwrap(), ["b/", "not-secrets/"]);
    assert_eq!(workspace.resolve("a/secrets").unwrap_err().error_kind(), ErrorKind::Blocked);
}

#[test]
fn a_pattern_without_a_slash_matches_at_any_depth() {
    let (tmp, workspace) = open(&["*.secret"]);
    for rel in ["c.secret", "a/c.secret", "a/b/c.secret"] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel).as_deref(), Some("*.secret"), "{rel}");
    }
    write(&tmp, "a/b/c.secret.txt");
    assert_eq!(blocked_by(&workspace, "a/b/c.secret.txt"), None);
    assert_eq!(workspace.list_dir("a/b").unwrap(), ["c.secret.txt"]);
}

#[test]
fn a_leading_or_middle_slash_anchors_the_pattern_to_the_root() {
    let (tmp, workspace) = open(&["/top.txt", "docs/private", "build/**"]);
    for rel in ["top.txt", "docs/private/a.md", "docs/private", "build/out.o", "build"] {
        if rel != "docs/private" && rel != "build" {
            write(&tmp, rel);
        }
        assert!(blocked_by(&workspace, rel).is_some(), "{rel} should be blocked");
    }
    for rel in ["a/top.txt", "a/docs/private/a.md", "a/build/out.o"] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel), None, "{rel} is not at the root");
    }
    // `dir/**` still blocks `dir` itself, and names the pattern as written.
    assert!(workspace.resolve("build").unwrap_err().to_string().contains("build/**"));
}

#[test]
fn default_secret_files_are_blocked_at_the_root_and_at_depth() {
    let (tmp, workspace) = open(&[]);
    let names = [
        "id_rsa",
        "id_ed25519",
        "id_ecdsa",
        "id_dsa",
        "id_ecdsa_sk",
        "id_ed25519_sk",
        "id_rsa.bak",
        "id_rsa.old",
        "id_ed25519~",
        "id_dsa_backup",
        "id_rsa.pub.bak",
        "cert.p12",
        "cert.pfx",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".aws/credentials",
        "release.keystore",
        "server.pem",
        "server.key",
        ".env",
        ".env.local",
    ];
    for name in names {
        for rel in [name.to_owned(), format!("home/user/{name}")] {
            write(&tmp, &rel);
            assert!(blocked_by(&workspace, &rel).is_some(), "{rel} should be blocked by default");
        }
    }
}

#[test]
fn near_misses_of_secret_names_stay_readable() {
    let (tmp, workspace) = open(&[]);
    let names = [
        "id_rsa.pub",
        "id_ed25519.pub",
        "id_ecdsa.pub",
        "id_dsa.pub",
        "id_ecdsa_sk.pub",
        "id_ed25519_sk.pub",
        "id_rsa-cert.pub",
        "id_utils.py",
        "credentials",
        "aws/credentials",
        "npmrc.md",
        "cert.p12.md",
        "keystore.txt",
        "src/netrc.rs",
    ];
    for name in names {
        for rel in [name.to_owned(), format!("deep/er/{name}")] {
            write(&tmp, &rel);
            assert_eq!(blocked_by(&workspace, &rel), None, "{rel} should stay readable");
        }
    }
}

#[test]
fn patterns_that_cannot_match_anything_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for pattern in ["", "   ", "# secrets", "/", "//", "a//b", "./a", "a/../b", "..", "!keep.txt", "a/[b"] {
        let policy = Policy { blocked: vec![pattern.to_owned()], ..Policy::default() };
        let err = Workspace::builder(tmp.path(), editkit_vfs::ambient_authority()).policy(policy).open().unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::InvalidArgs, "{pattern:?}: {err}");
        assert!(err.to_string().contains("blocked pattern"), "{pattern:?}: {err}");
    }
    // Escapes name files starting with `#` or `!`.
    let (tmp, workspace) = open(&["\\#notes", "\\!bang"]);
    write(&tmp, "#notes");
    write(&tmp, "x/!bang");
    assert!(blocked_by(&workspace, "#notes").is_some());
    assert!(blocked_by(&workspace, "x/!bang").is_some());
}

/// A case-insensitive or case-folding file system (macOS, Windows, ext4 with `casefold`, a
/// mounted FAT stick) opens the real `.env` for `.ENV`: blocked patterns ignore case.
#[test]
fn blocked_patterns_match_without_regard_to_case() {
    let (tmp, workspace) = open(&["secrets/", "/Private.txt"]);
    for (rel, pattern) in [
        (".ENV", "**/.env"),
        ("app/.Env.Local", "**/.env.*"),
        ("ID_RSA", "**/id_rsa"),
        ("keys/Id_Ed25519", "**/id_ed25519"),
        ("SERVER.PEM", "**/*.pem"),
        (".GIT/config", "**/.git/**"),
        ("vendor/x/.Git/HEAD", "**/.git/**"),
        (".NETRC", "**/.netrc"),
        ("SECRETS/x", "secrets/"),
        ("private.TXT", "/Private.txt"),
    ] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel).as_deref(), Some(pattern), "{rel}");
    }
    // Listings and walks leave them out too.
    assert!(!workspace.list_dir("").unwrap().iter().any(|name| name.eq_ignore_ascii_case(".env")));
    // Letters a Unicode case-folding file system folds to ASCII: the long s and the Kelvin sign.
    for (rel, pattern) in [
        ("id_r\u{17f}a", "**/id_rsa"),
        ("x.\u{212a}EY", "**/*.key"),
        (".\u{212a}eystore/a.\u{212a}eystore", "**/*.keystore"),
    ] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel).as_deref(), Some(pattern), "{rel}");
    }
    // Public keys stay readable whatever their case.
    for rel in ["ID_RSA.PUB", "id_ecdsa.pUB", "caf\u{e9}.txt"] {
        write(&tmp, rel);
        assert_eq!(blocked_by(&workspace, rel), None, "{rel}");
    }
}
