//! editkit-vfs alone: a guarded write, a stale one refused, an escape refused. `cargo run -p editkit-vfs --example vfs_downstream`
use editkit_vfs::{ErrorKind, Workspace, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("a.txt"), "one\r\n")?;
    let workspace = Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    let seen = workspace.read("a.txt")?;
    let guard = WriteOptions { expected_hash: Some(seen.sha256()), ..Default::default() };
    workspace.write("a.txt", b"two\r\n", &guard)?;
    // The hash the agent saw is gone: the same guarded write is refused.
    assert_eq!(workspace.write("a.txt", b"three\r\n", &guard).err().map(|e| e.error_kind()), Some(ErrorKind::Stale));
    assert_eq!(workspace.read("../outside").err().map(|e| e.error_kind()), Some(ErrorKind::OutsideWorkspace));
    println!("{}", std::fs::read_to_string(dir.path().join("a.txt"))?.trim_end());
    Ok(())
}
