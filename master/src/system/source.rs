//! The text of a system file, to turn byte positions into the line numbers that messages give.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::Error;

/// A system file's path and text.
pub struct SourceText {
    path: PathBuf,
    text: String,
}

impl SourceText {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Ok(SourceText {
            path: path.to_path_buf(),
            text,
        })
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The 1-based line and column of byte `offset`.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// An error in this file at the start of `span`.
    pub fn error(&self, span: Range<usize>, message: impl std::fmt::Display) -> Error {
        let (line, _) = self.position(span.start);
        Error::InputFile {
            path: self.path.clone(),
            message: format!("line {line}: {message}"),
        }
    }

    /// An error about the file as a whole.
    pub fn error_in_file(&self, message: impl std::fmt::Display) -> Error {
        Error::InputFile {
            path: self.path.clone(),
            message: message.to_string(),
        }
    }
}
