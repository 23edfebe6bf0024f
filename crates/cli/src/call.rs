//! `editkit call`: the JSON tool-call contract on stdin and stdout.
//!
//! A call is `{"tool": NAME, "args": {...}}`, with `--jsonl` one per line and an optional
//! `"id"` echoed in its result. Whatever a line holds (bad JSON, a non-object, a key given
//! twice anywhere, an unknown tool, arguments of the wrong type, a line far too long), it gets
//! one `invalid_args` result naming the field, and the stream goes on.

use std::io::{self, BufRead, Write};

use editkit::Toolkit;
use serde_json::{Value, json};

use serde::Deserialize;

use crate::contract::Envelope;
use crate::exit::EXIT_OK;

/// The longest call read: the toolkit's argument limit plus room for the envelope. Longer
/// lines are skipped without being held in memory.
const MAX_LINE_BYTES: usize = editkit::tools::MAX_ARGS_BYTES + (1 << 20);

/// Runs one call (or, with `jsonl`, one per line until EOF) from stdin.
///
/// # Errors
/// Reading stdin or writing stdout failed.
pub(crate) fn run(toolkit: &Toolkit, jsonl: bool) -> io::Result<u8> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut output = io::BufWriter::new(stdout.lock());
    if !jsonl {
        let result = match read_bounded(&mut input, false)? {
            Some(Chunk::Complete(bytes)) => answer(toolkit, &bytes, None),
            Some(Chunk::TooLong(size)) => too_long(size, None),
            None => invalid(None, "no call on stdin; send {\"tool\": NAME, \"args\": {...}}".into()),
        };
        writeln!(output, "{result}")?;
        output.flush()?;
        let envelope = Envelope::deserialize(&result).unwrap_or_default();
        return Ok(match envelope.error {
            Some(error) if !envelope.ok => error.exit_code(),
            _ => EXIT_OK,
        });
    }
    let mut line_no = 0usize;
    while let Some(chunk) = read_bounded(&mut input, true)? {
        line_no += 1;
        let result = match chunk {
            Chunk::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
            Chunk::Complete(bytes) => answer(toolkit, &bytes, Some(line_no)),
            Chunk::TooLong(size) => too_long(size, Some(line_no)),
        };
        writeln!(output, "{result}")?;
        // Drivers wait for each answer before sending the next call.
        output.flush()?;
    }
    Ok(EXIT_OK)
}

/// One call's bytes, or the size of a call too long to keep.
enum Chunk {
    Complete(Vec<u8>),
    TooLong(usize),
}

/// Reads up to the next newline (`line`) or to EOF, keeping at most [`MAX_LINE_BYTES`].
fn read_bounded(input: &mut impl BufRead, line: bool) -> io::Result<Option<Chunk>> {
    let mut bytes = Vec::new();
    let mut size = 0usize;
    let mut any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            break;
        }
        any = true;
        let (piece, done) = match available.iter().position(|&b| b == b'\n').filter(|_| line) {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        size += piece.len();
        if size <= MAX_LINE_BYTES {
            bytes.extend_from_slice(piece);
        } else if !bytes.is_empty() {
            bytes = Vec::new();
        }
        let consumed = done.unwrap_or(available.len());
        input.consume(consumed);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    Ok(Some(if size > MAX_LINE_BYTES { Chunk::TooLong(size) } else { Chunk::Complete(bytes) }))
}

/// The result of one call's bytes, with its `id` echoed.
fn answer(toolkit: &Toolkit, bytes: &[u8], line_no: Option<usize>) -> Value {
    // A key given twice anywhere is refused: readers disagree on which one counts.
    let request: Value = match editkit::json::parse(bytes) {
        Ok(request) => request,
        Err(editkit::json::ParseError::Syntax(err)) => {
            let at = line_no.map(|n| format!("line {n} ")).unwrap_or_default();
            return invalid(None, format!("{at}is not valid JSON ({err}); send {{\"tool\": NAME, \"args\": {{...}}}}"));
        }
        Err(err) => return json!({"ok": false, "error": editkit::Error::from(err).to_json()}),
    };
    let Value::Object(mut request) = request else {
        return invalid(Some("tool"), "a call is a JSON object {\"tool\": NAME, \"args\": {...}}".into());
    };
    let id = request.remove("id");
    // The envelope (`tool`, `args` or `arguments`, no other key) is the contract's: the facade checks it.
    let mut result = editkit::tools::call_json(toolkit, &Value::Object(request));
    if let (Some(id), Some(map)) = (id, result.as_object_mut()) {
        map.insert("id".into(), id);
    }
    result
}

fn too_long(size: usize, line_no: Option<usize>) -> Value {
    let at = line_no.map(|n| format!("line {n} ")).unwrap_or_default();
    invalid(
        Some("args"),
        format!("{at}is {size} bytes, over the {MAX_LINE_BYTES}-byte limit of one call; send smaller arguments"),
    )
}

/// An `invalid_args` contract error.
fn invalid(field: Option<&str>, message: String) -> Value {
    let mut error = json!({"kind": editkit::ErrorKind::InvalidArgs, "message": message});
    if let (Some(field), Some(map)) = (field, error.as_object_mut()) {
        map.insert("field".into(), json!(field));
    }
    json!({"ok": false, "error": error})
}
