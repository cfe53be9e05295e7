//! The errors of plotters' drawing backends as sentences: plotters shows a bitmap backend's
//! error as Rust debug text (`ImageError(IoError(Os { code: 2, … }))`), and every error with
//! a prefix per layer it passed through.

use plotters::drawing::DrawingAreaErrorKind;
use plotters_backend::DrawingErrorKind;
use plotters_bitmap::BitMapBackendError;

/// A backend's own error in words.
pub trait BackendError: std::error::Error + Send + Sync {
    /// What went wrong, as an OS or encoder message.
    fn describe(&self) -> String;
}

impl BackendError for BitMapBackendError {
    fn describe(&self) -> String {
        match self {
            BitMapBackendError::IOError(e) => e.to_string(),
            // The image crate's message is the OS error's when writing the file failed.
            BitMapBackendError::ImageError(e) => e.to_string(),
            BitMapBackendError::InvalidBuffer => "the pixel buffer has the wrong size".into(),
            // A variant behind a plotters feature Tandem does not enable (GIF output).
            #[allow(unreachable_patterns)]
            other => format!("the bitmap could not be written ({other})"),
        }
    }
}

/// The SVG backend's error.
impl BackendError for std::io::Error {
    fn describe(&self) -> String {
        self.to_string()
    }
}

/// `error` of a drawing in words.
pub fn describe<E: BackendError>(error: DrawingAreaErrorKind<E>) -> String {
    match error {
        DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(e)) => e.describe(),
        DrawingAreaErrorKind::BackendError(DrawingErrorKind::FontError(e)) => {
            format!("the text could not be drawn: {e}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_error_reads_as_the_os_says_it() {
        let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let bitmap = DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(
            BitMapBackendError::IOError(missing()),
        ));
        assert_eq!(describe(bitmap), missing().to_string());
        let svg = DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(missing()));
        assert_eq!(describe(svg), missing().to_string());
    }
}
