//! A real edit through the sandbox, on a throwaway copy of a small project (or on `DIR` if
//! given): read with hash, splice one line keeping CRLF endings, write atomically, then show
//! a stale write and an escape being refused.
//!
//! `cargo run -p editkit-vfs --example edit [DIR]`

use editkit_vfs::{Workspace, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scratch = tempfile::tempdir()?;
    let root = match std::env::args().nth(1) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => {
            std::fs::create_dir_all(scratch.path().join("src"))?;
            std::fs::write(
                scratch.path().join("src/greet.py"),
                "def greet(name):\r\n    return 'hello ' + name\r\n\r\nprint(greet('world'))\r\n",
            )?;
            scratch.path().to_owned()
        }
    };
    let workspace = Workspace::open(&root, editkit_vfs::ambient_authority())?;
    println!("workspace: {}", workspace.root_path().display());

    let file = workspace.read("src/greet.py")?;
    println!(
        "read src/greet.py: {} lines, {:?} endings, sha256 {}",
        file.line_count(),
        file.decoded().line_endings(),
        short(file.sha256())
    );

    let old = "return 'hello ' + name";
    let Some(at) = file.text().find(old) else {
        return Err(format!("`{old}` not found in src/greet.py").into());
    };
    let mut text = file.decoded().clone();
    text.splice(at..at + old.len(), "return f'hello, {name}!'")?;
    let written = workspace.write("src/greet.py", &text.encode(), &WriteOptions::default())?;
    println!("edited: sha256 {} -> {}", short(file.sha256()), short(written.sha256));
    print!("{}", workspace.read("src/greet.py")?.text());

    // Someone else changes the file: a write based on the old read is refused.
    std::fs::write(root.join("src/greet.py"), "print('changed elsewhere')\n")?;
    match workspace.write("src/greet.py", b"mine\n", &WriteOptions::default()) {
        Err(err) => println!("refused ({}): {err}", err.error_kind().as_str()),
        Ok(_) => return Err("a stale write was accepted".into()),
    }
    // Paths that lead out are refused before anything is touched.
    for path in ["../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", ".git/config"] {
        match workspace.read(path) {
            Err(err) => println!("refused ({}): {err}", err.error_kind().as_str()),
            Ok(_) => return Err(format!("{path} was readable").into()),
        }
    }
    Ok(())
}

/// The first 12 hex digits of a hash, for people to read.
fn short(sha256: editkit_vfs::Sha256) -> String {
    sha256.to_string()[..12].to_owned()
}
