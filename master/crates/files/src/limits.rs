//! How much of an input file is read: a whole text file (TOML, XML) at most
//! [`MAX_TEXT_FILE`], a data file (CSV) at most [`MAX_DATA_FILE`] in lines of at most
//! [`MAX_LINE`]. A file past a limit is refused with a message saying so, before it takes
//! the machine's memory.

use std::io::{self, Read};

/// Largest text file read whole (system files, SSP descriptions, problem files).
pub const MAX_TEXT_FILE: u64 = 256 << 20;

/// Largest data file (input signals, measurements, parameter sets).
pub const MAX_DATA_FILE: u64 = 4 << 30;

/// Longest line of a data file.
pub const MAX_LINE: usize = 1 << 20;

/// A reader that fails with `InvalidData` once a line grows past [`MAX_LINE`] bytes.
pub struct LineLimited<R> {
    inner: R,
    /// Bytes since the last line break.
    line: usize,
}

impl<R> LineLimited<R> {
    /// Limits the lines of `inner`.
    pub fn new(inner: R) -> Self {
        LineLimited { inner, line: 0 }
    }
}

impl<R: Read> Read for LineLimited<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buffer)?;
        for &byte in &buffer[..count] {
            self.line = if byte == b'\n' { 0 } else { self.line + 1 };
            if self.line > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line is longer than {} MiB", MAX_LINE >> 20),
                ));
            }
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_longer_than_the_limit_fails_the_read() {
        let mut text = vec![b'1'; MAX_LINE];
        text.push(b'\n');
        let mut ok = Vec::new();
        LineLimited::new(text.as_slice())
            .read_to_end(&mut ok)
            .unwrap();
        text.extend(vec![b'2'; MAX_LINE + 1]);
        let error = LineLimited::new(text.as_slice())
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert_eq!(error.to_string(), "a line is longer than 1 MiB");
    }
}
