//! The notebook tools: `notebook_read`, `notebook_edit`, and `edit_file` with a `cell_id`.
//! Each reads and writes the notebook like any file (staleness guard, lock, undo entry, dry
//! run); what changes in its text is worked out by `notebook.rs` as splices, so every byte
//! outside the changed cell stays as it was.

use std::ops::Range;

use editkit_matcher as matcher;
use editkit_vfs::Text;

use crate::catalog::Tool;
use crate::error::{Error, Result};
use crate::notebook::{self, Kind, MAX_OUTPUT_CHARS, MAX_SOURCE_BYTES, Notebook};
use crate::toolkit::{KeptWrite, ReadForWrite, Toolkit, encoding_arg, unencodable};
use crate::types::*;

fn refused(path: &str, source: notebook::Error) -> Error {
    Error::Notebook { path: path.to_owned(), source }
}

fn kind_of(cell_type: CellType) -> Kind {
    match cell_type {
        CellType::Code => Kind::Code,
        CellType::Markdown => Kind::Markdown,
        CellType::Raw => Kind::Raw,
    }
}

fn check_source(path: &str, source: &str) -> Result<()> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(refused(path, notebook::Error::SourceTooLarge { size: source.len(), limit: MAX_SOURCE_BYTES }));
    }
    Ok(())
}

/// `text` with `splices` made, checked to be a notebook of `count` cells still.
fn splice(path: &str, text: &Text, splices: &notebook::Splices, count: usize) -> Result<Text> {
    let edits: Vec<(Range<usize>, &str)> = splices.iter().map(|(range, new)| (range.clone(), new.as_str())).collect();
    let new_text = text.spliced(&edits).map_err(|e| Error::invalid("path", format!("internal range error: {e}")))?;
    // The splices keep the JSON whole by construction; a notebook that would not read back is
    // never written all the same.
    match Notebook::parse(new_text.as_str()) {
        Ok(again) if again.cells.len() == count => Ok(new_text),
        _ => Err(refused(
            path,
            notebook::Error::NotNotebook {
                reason: "the change would not leave a readable notebook, so nothing was written".into(),
            },
        )),
    }
}

impl Toolkit {
    /// A notebook's cells: id, type, source, execution count and a bounded summary of the
    /// outputs. Arms the staleness guard like `read_file`.
    ///
    /// # Errors
    /// `invalid_args` for a file that is not an nbformat 4 notebook or a `max_output_chars`
    /// over [`MAX_OUTPUT_CHARS`]; `too_large` past [`notebook::MAX_CELLS`]; as `read_file`.
    pub fn notebook_read(&self, request: NotebookReadRequest) -> Result<NotebookReadResponse> {
        if request.max_output_chars > MAX_OUTPUT_CHARS {
            return Err(Error::invalid(
                "max_output_chars",
                format!(
                    "max_output_chars is {}, over the limit of {MAX_OUTPUT_CHARS} (`MAX_OUTPUT_CHARS`); ask for fewer",
                    request.max_output_chars
                ),
            ));
        }
        let (_, workspace) = self.route(&request.path);
        let file = workspace.read(&request.path)?;
        let notebook = Notebook::parse(file.text()).map_err(|e| refused(file.path(), e))?;
        let cells = notebook
            .cells
            .iter()
            .enumerate()
            .map(|(index, cell)| {
                let (outputs, outputs_truncated) =
                    notebook::summarise_outputs(cell.outputs(), request.max_output_chars);
                NotebookCell {
                    index,
                    id: cell.id.clone(),
                    cell_type: cell.cell_type().to_owned(),
                    source: cell.source(),
                    execution_count: cell.execution_count(),
                    output_count: cell.outputs().len(),
                    outputs,
                    outputs_truncated,
                }
            })
            .collect();
        Ok(NotebookReadResponse {
            path: file.path().to_owned(),
            sha256: file.sha256(),
            nbformat: notebook.version(),
            cells,
        })
    }

    /// Replaces, inserts or deletes one cell of a notebook, splicing the JSON text of that cell
    /// alone; a replaced code cell's outputs and execution count are cleared.
    ///
    /// # Errors
    /// `invalid_args` for arguments that do not fit the action or a file that is not a
    /// notebook, `not_found` for an unknown cell, `no_change`, `too_large` past a bound,
    /// `stale`, path errors.
    pub fn notebook_edit(&self, request: NotebookEditRequest) -> Result<NotebookEditResponse> {
        self.admit(Tool::NotebookEdit, request.dry_run)?;
        let is_delete = request.action == NotebookAction::Delete;
        match (&request.cell_id, request.index) {
            (Some(_), Some(_)) => return Err(Error::invalid("index", "give cell_id or index, not both")),
            (None, None) => {
                return Err(Error::invalid("cell_id", "name the cell: give cell_id (from notebook_read) or index"));
            }
            _ => {}
        }
        match (&request.source, is_delete) {
            (Some(_), true) => return Err(Error::invalid("source", "delete takes no source; leave it out")),
            (None, false) => {
                return Err(Error::invalid("source", "give the cell's source (an empty string for an empty cell)"));
            }
            (Some(source), false) => check_source(&request.path, source)?,
            (None, true) => {}
        }
        if is_delete && request.cell_type.is_some() {
            return Err(Error::invalid("cell_type", "delete takes no cell_type; leave it out"));
        }
        let source = request.source.as_deref().unwrap_or("");
        let (_, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        let (file, planned) = lock.read_for_write_in(None, request.expected_hash, request.force, |text| {
            let notebook = Notebook::parse(text.as_str()).map_err(|e| refused(&rel, e))?;
            let count = notebook.cells.len();
            let inserting = matches!(request.action, NotebookAction::InsertBefore | NotebookAction::InsertAfter);
            let index = if inserting && count == 0 && request.index == Some(0) {
                0
            } else {
                notebook.find(request.cell_id.as_deref(), request.index).map_err(|e| refused(&rel, e))?
            };
            let (splices, at, id, count) = match request.action {
                NotebookAction::Replace => {
                    let kind = match request.cell_type {
                        Some(cell_type) => kind_of(cell_type),
                        None => match notebook.cells[index].cell_type() {
                            "code" => Kind::Code,
                            "raw" => Kind::Raw,
                            _ => Kind::Markdown,
                        },
                    };
                    (notebook.replace(index, source, kind), index, notebook.cells[index].id.clone(), count)
                }
                NotebookAction::InsertBefore | NotebookAction::InsertAfter => {
                    let after = request.action == NotebookAction::InsertAfter;
                    let kind = kind_of(request.cell_type.unwrap_or(CellType::Code));
                    let (splices, id) = notebook.insert(index, after, source, kind).map_err(|e| refused(&rel, e))?;
                    let at = if count == 0 { 0 } else { index + usize::from(after) };
                    (splices, at, id, count + 1)
                }
                NotebookAction::Delete => (notebook.delete(index), index, notebook.cells[index].id.clone(), count - 1),
            };
            if splices.is_empty() {
                return Err(Error::Edit { path: rel.clone(), source: matcher::Error::NoChange });
            }
            Ok::<_, Error>((splice(&rel, text, &splices, count)?, at, id, count))
        })?;
        let (new_text, index, cell_id, cell_count) = planned?;
        let bytes = new_text.try_encoded().map_err(|err| unencodable(&request.path, err))?;
        let old = file.decoded().as_str();
        let response = |diff: (String, bool), sha256| NotebookEditResponse {
            path: rel.clone(),
            action: request.action,
            index,
            cell_id: cell_id.clone(),
            cell_count,
            diff: diff.0,
            diff_truncated: diff.1,
            sha256,
            dry_run: request.dry_run,
        };
        if request.dry_run {
            return Ok(response(self.diff(&rel, old, new_text.as_str()), editkit_vfs::Sha256::of(&bytes)));
        }
        let (wrote, _, diff) = self.write_edited(
            workspace,
            lock,
            ReadForWrite { file: &file, expected_hash: None },
            &bytes,
            new_text.as_str(),
            || self.diff(&rel, old, new_text.as_str()),
        )?;
        drop(bytes);
        let KeptWrite { written, reformatted, .. } = wrote;
        if !reformatted {
            workspace.remember_text(&rel, written.sha256, new_text);
        }
        Ok(response(diff, written.sha256))
    }

    /// `edit_file` with a `cell_id`: the edit is found by the ladder in that cell's source
    /// alone, and the notebook takes the new source as `notebook_edit`'s replace would (a code
    /// cell's outputs cleared). Lines in the response count in the cell.
    pub(crate) fn edit_cell(
        &self,
        request: &EditFileRequest,
        cell_id: &str,
        vet: &impl Fn(&str, &str) -> Result<()>,
    ) -> Result<EditFileResponse> {
        if request.within.is_some() {
            return Err(Error::invalid(
                "within",
                "give within or cell_id, not both: cell_id already confines the edit",
            ));
        }
        let (_, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        let asked = encoding_arg(request.encoding.as_deref())?;
        let (file, planned) = lock.read_for_write_in(asked, request.expected_hash, request.force, |text| {
            let notebook = Notebook::parse(text.as_str()).map_err(|e| refused(&rel, e))?;
            let index = notebook.find(Some(cell_id), None).map_err(|e| refused(&rel, e))?;
            let old_source = notebook.cells[index].source();
            let cell_text = Text::decode(old_source.as_bytes()).map_err(|e| {
                Error::invalid("cell_id", format!("the source of cell `{cell_id}` cannot be edited as text: {e}"))
            })?;
            let prepared = self.prepare_edit(&rel, &cell_text, request, vet, false)?;
            let new_source = prepared.new_text.with_endings().into_owned();
            check_source(&rel, &new_source)?;
            let splices = notebook.set_source(index, &new_source);
            let new_text = splice(&rel, text, &splices, notebook.cells.len())?;
            Ok::<_, Error>((prepared, new_text, old_source, new_source))
        })?;
        let (prepared, new_text, old_source, new_source) = planned?;
        let bytes = new_text.try_encoded().map_err(|err| unencodable(&request.path, err))?;
        let label = format!("{rel}#{cell_id}");
        if request.dry_run {
            let sha256 = editkit_vfs::Sha256::of(&bytes);
            let diff = self.diff(&label, &old_source, &new_source);
            return Ok(prepared.into_response(request, diff, file.size(), bytes.len() as u64, sha256).0);
        }
        let (wrote, diagnostics, diff) = self.write_edited(
            workspace,
            lock,
            ReadForWrite { file: &file, expected_hash: None },
            &bytes,
            new_text.as_str(),
            || self.diff(&label, &old_source, &new_source),
        )?;
        drop(bytes);
        let KeptWrite { written, kept, reformatted } = wrote;
        let (mut response, _) = prepared.into_response(request, diff, file.size(), written.size, written.sha256);
        if !reformatted {
            workspace.remember_text(&rel, written.sha256, new_text);
        }
        if request.backup {
            response.backup_path = kept;
        }
        response.diagnostics = diagnostics;
        Ok(response)
    }
}
