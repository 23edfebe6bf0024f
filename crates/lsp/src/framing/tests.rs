use super::*;

fn read_all(bytes: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
    let mut reader = std::io::BufReader::new(bytes);
    let mut out = Vec::new();
    loop {
        match read_message(&mut reader, MAX_MESSAGE_BYTES) {
            Ok(None) => {
                out.push(Ok(None));
                return out;
            }
            Ok(Some(body)) => out.push(Ok(Some(body))),
            Err(error) => {
                out.push(Err(error.to_string()));
                return out;
            }
        }
    }
}

#[test]
fn two_messages_round_trip() {
    let mut bytes = Vec::new();
    write_message(&mut bytes, b"{\"a\":1}").expect("write to a vec");
    write_message(&mut bytes, b"{}").expect("write to a vec");
    assert_eq!(read_all(&bytes), vec![Ok(Some(b"{\"a\":1}".to_vec())), Ok(Some(b"{}".to_vec())), Ok(None)]);
}

#[test]
fn other_headers_and_bare_newlines_are_read() {
    let bytes = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\ncontent-length:  2\n\n{}";
    assert_eq!(read_all(bytes), vec![Ok(Some(b"{}".to_vec())), Ok(None)]);
}

#[test]
fn a_huge_length_is_refused_before_allocating() {
    let bytes = b"Content-Length: 99999999999999999\r\n\r\n{}";
    let error = read_message(&mut std::io::BufReader::new(&bytes[..]), MAX_MESSAGE_BYTES).expect_err("too large");
    assert!(matches!(error, FramingError::TooLarge { size: 99_999_999_999_999_999, .. }), "{error}");
}

#[test]
fn the_callers_limit_counts() {
    let bytes = b"Content-Length: 11\r\n\r\n{\"a\":12345}";
    let error = read_message(&mut std::io::BufReader::new(&bytes[..]), 10).expect_err("over the limit");
    assert!(matches!(error, FramingError::TooLarge { size: 11, limit: 10 }), "{error}");
}

#[test]
fn an_endless_header_line_is_refused() {
    let bytes = vec![b'x'; MAX_HEADER_LINE * 3];
    let error = read_message(&mut std::io::BufReader::new(&bytes[..]), MAX_MESSAGE_BYTES).expect_err("too long");
    assert!(matches!(error, FramingError::HeaderTooLong), "{error}");
}

#[test]
fn too_many_headers_are_refused() {
    let bytes = "X-A: 1\r\n".repeat(MAX_HEADERS + 1) + "Content-Length: 2\r\n\r\n{}";
    let error = read_message(&mut std::io::BufReader::new(bytes.as_bytes()), 100).expect_err("too many");
    assert!(matches!(error, FramingError::TooManyHeaders), "{error}");
    let endless_blank_lines = "\r\n".repeat(MAX_HEADERS + 1);
    let error = read_message(&mut std::io::BufReader::new(endless_blank_lines.as_bytes()), 100).expect_err("blank");
    assert!(matches!(error, FramingError::TooManyHeaders), "{error}");
}

#[test]
fn garbage_and_broken_frames_are_errors() {
    for (bytes, want) in [
        (&b"hello world\r\n\r\n"[..], "not `Name: value`"),
        (b"Content-Length: two\r\n\r\n", "no valid Content-Length"),
        (b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "no valid Content-Length"),
        (b"X-Other: 1\r\n\r\n{}", "no valid Content-Length"),
        (b"Content-Length: 10\r\n\r\n{}", "ended inside"),
        (b"Content-Length: 10\r\n", "ended inside"),
        (b"Content-Le", "ended inside"),
        (b"\xff\xfe: 1\r\n\r\n", "not `Name: value`"),
    ] {
        let got = read_all(bytes);
        let last = got.last().cloned().expect("one result at least");
        assert!(
            last.as_ref().is_err_and(|message| message.contains(want)),
            "{:?}: {got:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Hostile bytes never panic, never loop, and never make the reader allocate more than
    /// the body limit: each read consumes input or ends.
    #[test]
    fn hostile_bytes_end_in_an_answer(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
        let mut reader = std::io::BufReader::new(&bytes[..]);
        for _ in 0..=bytes.len() {
            match read_message(&mut reader, 256) {
                Ok(Some(body)) => proptest::prop_assert!(body.len() <= 256),
                Ok(None) | Err(_) => return Ok(()),
            }
        }
        proptest::prop_assert!(false, "the reader did not finish");
    }

    /// Hostile headers in front of a valid message: either the message or an error, never
    /// another body.
    #[test]
    fn framed_bodies_survive_noise_headers(
        noise in proptest::collection::vec("[A-Za-z-]{1,12}: [ -~]{0,20}", 0..20),
        body in "[ -~]{0,64}",
    ) {
        let mut bytes = noise.join("\r\n").into_bytes();
        if !noise.is_empty() {
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        let got = read_message(&mut std::io::BufReader::new(&bytes[..]), 1024);
        let length_in_noise = noise.iter().any(|line| line.to_ascii_lowercase().starts_with("content-length:"));
        match got {
            Ok(Some(read)) => proptest::prop_assert_eq!(read, body.into_bytes()),
            Ok(None) => proptest::prop_assert!(false, "a message was there"),
            Err(_) => proptest::prop_assert!(noise.len() + 1 > MAX_HEADERS || length_in_noise),
        }
    }
}
