//! editkit-patch with editkit-vfs: a two-file patch lands whole or not at all. `cargo run -p editkit-patch --example patch_downstream`
use editkit_patch::{ApplyOptions, apply};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("a.py"), "a = 1\n")?;
    let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    let patch = "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** Add File: b.py\n+b = 1\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default())?;
    println!("updated {:?}, added {:?}", applied.updated, applied.added);
    // Cut off before its end: refused, nothing written.
    let cut = "*** Begin Patch\n*** Update File: a.py\n-a = 2\n+a =";
    assert_eq!(apply(&workspace, cut, &ApplyOptions::default()).err().map(|e| e.kind()), Some("invalid_patch"));
    assert_eq!(std::fs::read_to_string(dir.path().join("a.py"))?, "a = 2\n");
    Ok(())
}
