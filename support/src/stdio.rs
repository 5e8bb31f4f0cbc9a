//! Standard output and standard error that never panic: results go to
//! stdout with their errors returned (a reader that went away is
//! [`io::ErrorKind::BrokenPipe`], which the tools' `main` turns into a quiet
//! exit), and progress, log and error lines go to stderr, where a failure
//! is ignored so that it can never abort a computation.

use std::fmt;
use std::io::{self, Write};

/// Writes `args` and a newline to stderr, ignoring any error.
pub fn stderr_line(args: fmt::Arguments) {
    let _ = writeln!(io::stderr().lock(), "{args}");
}

/// Writes `args` and a newline to stdout; an error says it was stdout and
/// keeps its kind.
pub fn stdout_line(args: fmt::Arguments) -> io::Result<()> {
    writeln!(io::stdout().lock(), "{args}").map_err(stdout_error)
}

/// Writes `text` as it is to stdout (see [`stdout_line`] for errors).
pub fn stdout_text(text: &str) -> io::Result<()> {
    io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(stdout_error)
}

/// Flushes stdout (see [`stdout_line`] for errors).
pub fn flush_stdout() -> io::Result<()> {
    io::stdout().lock().flush().map_err(stdout_error)
}

fn stdout_error(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write standard output: {e}"))
}

/// `eprintln!` that never panics: a line on stderr, errors ignored.
#[macro_export]
macro_rules! note {
    () => {
        $crate::stdio::stderr_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::stdio::stderr_line(format_args!($($arg)*))
    };
}

/// `println!` that never panics: a line on stdout, `io::Result<()>`.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::stdio::stdout_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::stdio::stdout_line(format_args!($($arg)*))
    };
}

/// One line of a [`BoundedLines`] input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's bytes, without the line ending (`\n` or `\r\n`).
    Text(Vec<u8>),
    /// A line longer than the limit; its bytes were skipped, not stored.
    TooLong,
}

/// The lines of a text input with a maximum length, so that an input
/// without line breaks (`/dev/zero`, a binary file) cannot fill memory.
/// Bytes need not be UTF-8: the caller decides what a line means.
pub struct BoundedLines<R> {
    reader: R,
    max: usize,
}

impl<R: io::BufRead> BoundedLines<R> {
    /// Lines of `reader` of at most `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines { reader, max }
    }
}

impl<R: io::BufRead> Iterator for BoundedLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        let mut line = Vec::new();
        let mut too_long = false;
        let mut any = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if buf.is_empty() {
                break;
            }
            any = true;
            let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
                Some(k) => (&buf[..k], Some(k + 1)),
                None => (buf, None),
            };
            if !too_long && line.len() + chunk.len() <= self.max + 1 {
                line.extend_from_slice(chunk);
            } else {
                too_long = true;
                line.clear();
            }
            let used = end.unwrap_or(buf.len());
            self.reader.consume(used);
            if end.is_some() {
                break;
            }
        }
        if !any {
            return None;
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Some(Ok(if too_long || line.len() > self.max {
            Line::TooLong
        } else {
            Line::Text(line)
        }))
    }
}

/// Human-readable size.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// `text` cut to at most `max` characters, with `…` when cut (for echoing
/// bad input in a message).
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        BoundedLines::new(io::BufReader::with_capacity(4, input), max)
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn lines_are_split_and_bounded() {
        let text = |s: &str| Line::Text(s.as_bytes().to_vec());
        assert_eq!(
            lines(b"ab\r\n\ncdefgh\nxyz", 5),
            [text("ab"), text(""), Line::TooLong, text("xyz")]
        );
        assert_eq!(lines(b"12345\n123456\n", 5), [text("12345"), Line::TooLong]);
        assert_eq!(lines(b"\xff\xfe\n", 5), [Line::Text(vec![0xff, 0xfe])]);
        assert!(lines(b"", 5).is_empty());
        // A line without an end is read in bounded memory.
        let endless = io::Read::take(io::repeat(b'0'), 1 << 24);
        let mut it = BoundedLines::new(io::BufReader::new(endless), 100);
        assert_eq!(it.next().unwrap().unwrap(), Line::TooLong);
        assert!(it.next().is_none());
    }

    #[test]
    fn shortened_text_says_it_was_cut() {
        assert_eq!(shorten("abcdef", 3), "abc…");
        assert_eq!(shorten("abc", 3), "abc");
    }
}
