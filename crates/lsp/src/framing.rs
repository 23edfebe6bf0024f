//! The base protocol's framing: `Content-Length` headers, a blank line, a JSON body. Every
//! size is checked before memory is spent, since a server is a program editkit does not trust
//! to speak well: a header line, the number of headers and the body each have a bound.

use std::io::{BufRead, Read, Write};

/// The longest header line read, in bytes, its line break included.
pub const MAX_HEADER_LINE: usize = 4 * 1024;

/// The most header lines one message may carry.
pub const MAX_HEADERS: usize = 16;

/// The largest message body accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Why a message could not be read: the server is no longer spoken to after any of these.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FramingError {
    /// A header line went past [`MAX_HEADER_LINE`] bytes.
    #[error("a header line is longer than {MAX_HEADER_LINE} bytes")]
    HeaderTooLong,
    /// More than [`MAX_HEADERS`] header lines.
    #[error("a message has more than {MAX_HEADERS} headers")]
    TooManyHeaders,
    /// A header line that is not `Name: value`, or not UTF-8.
    #[error("a header line is not `Name: value`: {line:?}")]
    BadHeader {
        /// The line, cut to 80 characters.
        line: String,
    },
    /// `Content-Length` is absent, repeated or not a number.
    #[error("the message has no valid Content-Length")]
    BadLength,
    /// The body announced is larger than the limit.
    #[error("a message of {size} bytes is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The size announced.
        size: u64,
        /// The limit.
        limit: usize,
    },
    /// The stream ended inside a message.
    #[error("the stream ended inside a message")]
    Truncated,
    /// Reading failed.
    #[error("reading failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads one message body from `reader`, with bodies up to `max_body` bytes (at most
/// [`MAX_MESSAGE_BYTES`]). `Ok(None)` when the stream ends cleanly between messages.
///
/// # Errors
/// [`FramingError`] for a stream that breaks a bound or the framing; nothing more should be
/// read from it.
pub fn read_message(reader: &mut impl BufRead, max_body: usize) -> Result<Option<Vec<u8>>, FramingError> {
    let max_body = max_body.min(MAX_MESSAGE_BYTES);
    let mut length: Option<u64> = None;
    let mut n_headers = 0_usize;
    let mut n_blank = 0_usize;
    let mut line = Vec::with_capacity(64);
    loop {
        line.clear();
        let limit = u64::try_from(MAX_HEADER_LINE).unwrap_or(u64::MAX);
        let n = (&mut *reader).take(limit).read_until(b'\n', &mut line)?;
        if n == 0 {
            return if n_headers == 0 { Ok(None) } else { Err(FramingError::Truncated) };
        }
        if line.last() != Some(&b'\n') {
            return Err(if n >= MAX_HEADER_LINE { FramingError::HeaderTooLong } else { FramingError::Truncated });
        }
        let text = std::str::from_utf8(&line).map_err(|_| bad_header(&line))?;
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if n_headers == 0 {
                // Blank lines between messages are tolerated, but not endlessly.
                n_blank += 1;
                if n_blank > MAX_HEADERS {
                    return Err(FramingError::TooManyHeaders);
                }
                continue;
            }
            break;
        }
        n_headers += 1;
        if n_headers > MAX_HEADERS {
            return Err(FramingError::TooManyHeaders);
        }
        let Some((name, value)) = text.split_once(':') else { return Err(bad_header(&line)) };
        if name.trim().eq_ignore_ascii_case("content-length") {
            if length.is_some() {
                return Err(FramingError::BadLength);
            }
            length = Some(value.trim().parse::<u64>().map_err(|_| FramingError::BadLength)?);
        }
    }
    let size = length.ok_or(FramingError::BadLength)?;
    let body_size = usize::try_from(size).ok().filter(|size| *size <= max_body);
    let Some(body_size) = body_size else { return Err(FramingError::TooLarge { size, limit: max_body }) };
    let mut body = vec![0_u8; body_size];
    reader.read_exact(&mut body).map_err(|error| match error.kind() {
        std::io::ErrorKind::UnexpectedEof => FramingError::Truncated,
        _ => FramingError::Io(error),
    })?;
    Ok(Some(body))
}

fn bad_header(line: &[u8]) -> FramingError {
    FramingError::BadHeader { line: String::from_utf8_lossy(line).chars().take(80).collect() }
}

/// Writes one message: the `Content-Length` header, a blank line and `body`, then flushes.
///
/// # Errors
/// When writing fails (the server is gone).
pub fn write_message(writer: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(body);
    writer.write_all(&framed)?;
    writer.flush()
}

#[cfg(test)]
mod tests;
