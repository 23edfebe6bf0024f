//! `merge_snippet`: a lazy snippet (changed parts, the rest elided by marker comments) merged
//! into a file by the matcher's deterministic merger, under edit_file's lock, guard and undo.

use editkit_matcher::snippet::{self, Comment};

use crate::catalog::Tool;
use crate::error::{Error, Result};
use crate::toolkit::{KeptWrite, ReadForWrite, Toolkit};
use crate::types::*;

/// Largest snippet `merge_snippet` takes, in bytes.
pub const MAX_SNIPPET_BYTES: usize = 1 << 20;

/// The comment syntaxes a marker may use in a file, by its extension; every syntax for a file
/// of no known language.
pub(crate) fn comments_for(path: &str) -> Vec<Comment> {
    let extension = path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "py" | "pyi" | "yaml" | "yml" | "toml" | "sh" | "bash" | "rb" | "r" => vec![Comment::Hash],
        "ts" | "mts" | "cts" | "js" | "mjs" | "cjs" | "rs" | "go" | "json" | "jsonc" | "json5" | "c" | "h" | "cc"
        | "cpp" | "hpp" | "java" | "kt" | "swift" | "cs" | "css" | "scss" => vec![Comment::Slashes, Comment::Block],
        "tsx" | "jsx" => vec![Comment::Slashes, Comment::Block, Comment::JsxBlock],
        "md" | "markdown" | "html" | "htm" | "xml" | "svg" | "vue" => vec![Comment::Html],
        _ => Comment::ALL.to_vec(),
    }
}

/// The snippet's definitions named as in the file: a Markdown snippet names a section by its
/// own headers (`Install`), the file by all of its (`Guide > Install`); a snippet path the file
/// does not define, which ends exactly one file path, takes that path (and so do the paths
/// under it). Code paths the file defines as given are left as they are.
fn named_in_file(snippet: &[snippet::Definition], file: &[snippet::Definition]) -> Vec<snippet::Definition> {
    let mut out = snippet.to_vec();
    for def in snippet {
        if file.iter().any(|file_def| file_def.path == def.path) {
            continue;
        }
        let suffix = format!(" > {}", def.path);
        let mut ending = file.iter().filter(|file_def| file_def.path.ends_with(&suffix));
        let (Some(only), None) = (ending.next(), ending.next()) else { continue };
        let prefix = format!("{} > ", def.path);
        for renamed in &mut out {
            if renamed.path == def.path {
                renamed.path.clone_from(&only.path);
            } else if let Some(rest) = renamed.path.strip_prefix(&prefix) {
                renamed.path = format!("{} > {rest}", only.path);
            }
        }
    }
    out
}

impl Toolkit {
    /// Merges a lazy snippet into a file: each chunk lands where its lines align with the
    /// file's uniquely and in order; a marker keeps the file's lines between the chunks
    /// around it; lines a chunk leaves out between two of its lines are refused unless
    /// `deletions` is `allow`.
    ///
    /// # Errors
    /// `not_found` (a chunk aligns nowhere, or `reason: unaligned` for an omission),
    /// `ambiguous` (a chunk aligns at two places, or a new edge line could replace its
    /// neighbour), `no_change`, `invalid_args` (a snippet of markers only), `too_large`,
    /// `stale`, path and encoding errors.
    pub fn merge_snippet(&self, request: MergeSnippetRequest) -> Result<MergeSnippetResponse> {
        self.admit(Tool::MergeSnippet, request.dry_run)?;
        if request.snippet.len() > MAX_SNIPPET_BYTES {
            return Err(Error::LimitExceeded {
                what: "the snippet".into(),
                size: request.snippet.len() as u64,
                limit: MAX_SNIPPET_BYTES as u64,
                option: "MAX_SNIPPET_BYTES".into(),
                advice: "send the changed parts in several snippets, or use apply_patch".into(),
            });
        }
        let (root, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        let options = snippet::SnippetOptions {
            comments: comments_for(&rel),
            allow_deletions: request.deletions == Deletions::Allow,
            ..Default::default()
        };
        // The snippet's definitions (parsed once), for chunks aligned within a definition.
        let snippet_definitions: std::cell::OnceCell<Option<Vec<snippet::Definition>>> = std::cell::OnceCell::new();
        let plan = |text: &editkit_vfs::Text| {
            let snippet_definitions = snippet_definitions.get_or_init(|| {
                // A snippet whose first line of code is indented is a fragment: its name paths
                // would lack their enclosing definitions.
                let fragment = request
                    .snippet
                    .lines()
                    .find(|line| !line.trim().is_empty() && !snippet::is_marker(line, &options.comments))
                    .is_none_or(|line| line.starts_with(char::is_whitespace));
                if fragment {
                    return None;
                }
                crate::analysis::snippet_definitions(&rel, &request.snippet)
            });
            let outline = snippet_definitions.as_ref().and_then(|snippet| {
                let file = crate::analysis::snippet_definitions(&rel, text.as_str())?;
                let snippet = named_in_file(snippet, &file);
                Some(snippet::Outline { file, snippet })
            });
            let options = snippet::SnippetOptions { outline, ..options.clone() };
            let merged = snippet::merge(text.as_str(), &request.snippet, &options)
                .map_err(|source| Error::Snippet { path: rel.clone(), source })?;
            self.check_readable(&rel, merged.text().len())?;
            Ok::<_, Error>(merged)
        };
        let splice = |text: &editkit_vfs::Text, edits: &[(std::ops::Range<usize>, &str)]| {
            text.spliced(edits).map_err(|e| Error::invalid("snippet", format!("internal range error: {e}")))
        };
        let attempt = lock.read_for_write_with(request.expected_hash, request.force, |old_text| {
            let merged = plan(old_text)?;
            let edits: Vec<(std::ops::Range<usize>, &str)> = merged.edits().collect();
            let new_text = splice(old_text, &edits)?;
            Ok::<_, Error>((merged, new_text))
        });
        let (file, (merged, new_text), merged_with, line) = match attempt {
            // Changed since it was read: merged on the version read and carried over, as an
            // edit is.
            Err(stale @ editkit_vfs::Error::Stale { .. })
                if request.expected_hash.is_none() && !request.force && request.stale == StaleMode::Merge =>
            {
                let outside = self.merge_outside(root, workspace, &rel, stale, plan, |merged| {
                    merged.edits().map(|(range, piece)| (range, piece.to_owned())).collect()
                })?;
                let edits: Vec<(std::ops::Range<usize>, &str)> =
                    outside.rebased.pieces.iter().map(|(range, piece)| (range.clone(), piece.as_str())).collect();
                let new_text = splice(outside.file.decoded(), &edits)?;
                let rebased = outside.rebased;
                let line: Box<dyn Fn(usize) -> usize> = Box::new(move |line| rebased.line(line));
                (outside.file, (outside.planned, new_text), Some(outside.merged_with), line)
            }
            attempt => {
                let (file, merged) = attempt?;
                let line: Box<dyn Fn(usize) -> usize> = Box::new(|line| line);
                (file, merged?, None, line)
            }
        };
        let expected = merged_with.as_ref().map(|_| file.sha256());
        let new_text = std::sync::Arc::new(new_text);
        let bytes = new_text.try_encoded().map_err(|err| crate::toolkit::unencodable(&request.path, err))?;
        let (old, new) = (file.decoded().as_str(), new_text.as_str());
        let response = |diff: (String, bool), new_size, sha256, diagnostics| MergeSnippetResponse {
            path: rel.clone(),
            line_ranges: merged.chunks().iter().map(|chunk| chunk.lines.map(&line)).collect(),
            diff: diff.0,
            diff_truncated: diff.1,
            old_size: file.size(),
            new_size,
            sha256,
            dry_run: request.dry_run,
            chunks: merged
                .chunks()
                .iter()
                .map(|chunk| SnippetChunk {
                    snippet_lines: chunk.snippet_lines,
                    line_range: chunk.lines.map(&line),
                    aligned: chunk.aligned,
                    inserted: chunk.inserted,
                    removed: chunk.removed,
                    alignment: match chunk.alignment {
                        snippet::AlignedBy::Syntax => SnippetAlignment::Syntax,
                        snippet::AlignedBy::Lines => SnippetAlignment::Lines,
                    },
                    definition: chunk.definition.clone(),
                })
                .collect(),
            markers: merged
                .markers()
                .iter()
                .map(|marker| SnippetMarker {
                    snippet_line: marker.snippet_line,
                    kept: marker.kept.map(|kept| kept.map(&line)),
                })
                .collect(),
            diagnostics,
            merged_with: merged_with.clone(),
        };
        if request.dry_run {
            let (sha256, diff) = editkit_vfs::Sha256::of_beside(&bytes, || self.diff(&rel, old, new));
            return Ok(response(diff, bytes.len() as u64, sha256, DiagnosticsInfo::default()));
        }
        let (wrote, diagnostics, diff) = self.write_edited(
            workspace,
            lock,
            ReadForWrite { file: &file, expected_hash: expected },
            &bytes,
            new,
            || self.diff(&rel, old, new),
        )?;
        let KeptWrite { written, reformatted, .. } = wrote;
        if !reformatted {
            // The base of a merge with a change made outside before the next edit.
            drop(bytes);
            self.read_versions.keep(root, &rel, written.sha256, std::sync::Arc::clone(&new_text));
        }
        Ok(response(diff, written.size, written.sha256, diagnostics))
    }
}
