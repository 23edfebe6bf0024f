//! Read+hash and atomic write of 1 KiB, 1 MiB and 64 MiB files through a workspace.
//! `cargo xtask bench vfs` runs this and a side-by-side comparison with `sha256sum` and `cp`.

use editkit_vfs::{Workspace, WriteOptions};

const SIZES: &[(&str, usize)] = &[("1KiB", 1 << 10), ("1MiB", 1 << 20), ("64MiB", 64 << 20)];

fn main() {
    divan::main();
}

fn fixture(size: usize) -> (tempfile::TempDir, Workspace, Vec<u8>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let line = b"fn example() { let value = compute(42); println!(\"{value}\"); }\n";
    let bytes: Vec<u8> = line.iter().copied().cycle().take(size).collect();
    std::fs::write(dir.path().join("file.txt"), &bytes).expect("write fixture");
    let workspace = Workspace::builder(dir.path(), editkit_vfs::ambient_authority())
        .max_read_bytes(128 << 20)
        .open()
        .expect("workspace");
    (dir, workspace, bytes)
}

#[divan::bench(args = SIZES.iter().map(|(name, _)| *name))]
fn read_and_hash(bencher: divan::Bencher<'_, '_>, size: &str) {
    let bytes = SIZES.iter().find(|(name, _)| *name == size).map(|(_, n)| *n).unwrap_or(1024);
    let (_dir, workspace, _) = fixture(bytes);
    bencher.counter(divan::counter::BytesCount::new(bytes)).bench(|| workspace.read("file.txt").expect("read"));
}

#[divan::bench(args = SIZES.iter().map(|(name, _)| *name))]
fn atomic_write(bencher: divan::Bencher<'_, '_>, size: &str) {
    let bytes = SIZES.iter().find(|(name, _)| *name == size).map(|(_, n)| *n).unwrap_or(1024);
    let (_dir, workspace, content) = fixture(bytes);
    let options = WriteOptions { force: true, ..Default::default() };
    bencher
        .counter(divan::counter::BytesCount::new(bytes))
        .bench(|| workspace.write("file.txt", &content, &options).expect("write"));
}
