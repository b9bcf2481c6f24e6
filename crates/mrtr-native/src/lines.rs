//! Newline-delimited JSON-RPC read as bytes, one bounded line at a time: both ends of stdio
//! (the server reading its client, `mrtr-client` and `mrtr-audit` reading their server) use
//! it, so a line that is not UTF-8 or is too long is reported and passed over, never the end
//! of the stream, and no line is ever held beyond [`MAX_LINE`] bytes.

use std::io::{self, BufRead, Read};

/// The longest line read whole: 16 MiB, as rmcp reads (the TypeScript SDK reads 10 MiB), so
/// a message any SDK sends over stdio fits. A longer line is read to its end in small chunks
/// and dropped. (An HTTP body has its own, smaller limit: a request the network sends.)
pub const MAX_LINE: usize = 16 << 20;

/// [`MAX_LINE`] in words, for the messages that name it: "16777216-byte (16 MiB)".
pub fn max_line_words() -> String {
    format!("{MAX_LINE}-byte ({} MiB)", MAX_LINE >> 20)
}

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's bytes without its newline; UTF-8 is the caller's to check, so one bad line
    /// does not end the stream.
    Bytes(Vec<u8>),
    /// A line longer than the limit, discarded: how many bytes it had (without its newline).
    TooLong(u64),
}

/// Reads the next line, holding at most `max + 1` of its bytes; `None` at the end of input.
pub fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let read = input
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if read == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(Line::Bytes(buf)));
    }
    if buf.len() <= max {
        return Ok(Some(Line::Bytes(buf))); // The last line, without a newline.
    }
    let rest = skip_line(input)?;
    Ok(Some(Line::TooLong(buf.len() as u64 + rest)))
}

/// Discards the rest of a line (and its newline); returns how many bytes came before the
/// newline.
fn skip_line(input: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(skipped);
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(skipped + at as u64);
            }
            None => {
                let n = chunk.len();
                skipped += n as u64;
                input.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded_and_the_stream_goes_on() {
        let mut input = Vec::new();
        input.extend_from_slice(b"first\n");
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend_from_slice(b"\n\xff bad\n");
        input.extend(std::iter::repeat_n(b'y', 10));
        input.extend_from_slice(b"\nlast");
        let mut r = io::BufReader::with_capacity(4, io::Cursor::new(input));
        let mut next = || read_line(&mut r, 10).unwrap();
        assert_eq!(next(), Some(Line::Bytes(b"first".to_vec())));
        assert_eq!(next(), Some(Line::TooLong(100)));
        assert_eq!(next(), Some(Line::Bytes(b"\xff bad".to_vec())));
        assert_eq!(
            next(),
            Some(Line::Bytes(b"yyyyyyyyyy".to_vec())),
            "exactly the limit"
        );
        assert_eq!(next(), Some(Line::Bytes(b"last".to_vec())));
        assert_eq!(next(), None);
    }
}
