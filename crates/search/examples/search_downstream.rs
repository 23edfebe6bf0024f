//! editkit-search with editkit-vfs: a literal search with context. `cargo run -p editkit-search --example search_downstream`
use editkit_search::Search;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("a.py"), "def f():\n    # TODO: errors\n    pass\n")?;
    std::fs::write(dir.path().join(".env"), "TODO=secret\n")?;
    let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    let found = Search::builder("TODO").literal(true).context(1).build()?.run(&workspace, ".")?;
    // Blocked files (`.env`) are never searched.
    assert_eq!(found.files_with_matches, 1);
    for hit in &found.results {
        println!("{}:{}: {}", hit.file, hit.matches[0].line, hit.matches[0].content);
    }
    Ok(())
}
