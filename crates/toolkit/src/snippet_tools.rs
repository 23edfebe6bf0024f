//! `merge_snippet`: a lazy snippet (changed parts, the rest elided by marker comments) merged
//! into a file by the matcher's deterministic merger, under edit_file's lock, guard and undo.

use editkit_matcher::snippet::{self, Comment};

use crate::error::{Error, Result};
use crate::toolkit::{KeptWrite, Toolkit};
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
        if !request.dry_run {
            self.writable("merge_snippet")?;
        }
        if request.snippet.len() > MAX_SNIPPET_BYTES {
            return Err(Error::LimitExceeded {
                what: "the snippet".into(),
                size: request.snippet.len() as u64,
                limit: MAX_SNIPPET_BYTES as u64,
                option: "MAX_SNIPPET_BYTES".into(),
                advice: "send the changed parts in several snippets, or use apply_patch".into(),
            });
        }
        let (_, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        let options = snippet::SnippetOptions {
            comments: comments_for(&rel),
            allow_deletions: request.deletions == Deletions::Allow,
            ..Default::default()
        };
        let (file, merged) = lock.read_for_write_with(request.expected_hash, request.force, |old_text| {
            let merged = snippet::merge(old_text.as_str(), &request.snippet, &options)
                .map_err(|source| Error::Snippet { path: rel.clone(), source })?;
            self.check_readable(&rel, merged.text().len())?;
            let edits: Vec<(std::ops::Range<usize>, &str)> = merged.edits().collect();
            let new_text = old_text
                .spliced(&edits)
                .map_err(|e| Error::invalid("snippet", format!("internal range error: {e}")))?;
            Ok::<_, Error>((merged, new_text))
        })?;
        let (merged, new_text) = merged?;
        let bytes = new_text.encoded();
        let (old, new) = (file.decoded().as_str(), new_text.as_str());
        let response = |diff: (String, bool), new_size, sha256, diagnostics| MergeSnippetResponse {
            path: rel.clone(),
            line_ranges: merged.chunks().iter().map(|chunk| chunk.lines).collect(),
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
                    line_range: chunk.lines,
                    aligned: chunk.aligned,
                    inserted: chunk.inserted,
                    removed: chunk.removed,
                })
                .collect(),
            markers: merged
                .markers()
                .iter()
                .map(|marker| SnippetMarker { snippet_line: marker.snippet_line, kept: marker.kept })
                .collect(),
            diagnostics,
        };
        if request.dry_run {
            let (sha256, diff) = editkit_vfs::Sha256::of_beside(&bytes, || self.diff(&rel, old, new));
            return Ok(response(diff, bytes.len() as u64, sha256, DiagnosticsInfo::default()));
        }
        let (wrote, diagnostics, diff) =
            self.write_edited(workspace, lock, &file, &bytes, new, || self.diff(&rel, old, new))?;
        let KeptWrite { written, .. } = wrote;
        Ok(response(diff, written.size, written.sha256, diagnostics))
    }
}
