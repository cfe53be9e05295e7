//! The files a command reads and writes, guarded against what a careless command line can do
//! to them: inputs are opened only when they are regular files (a FIFO blocks `open` forever,
//! `/dev/zero` never ends) and are remembered, so that a result file is created only when it
//! is none of them and no other result of the same run; result files are written under an
//! advisory lock, so that a second run writing the same file is refused instead of splicing
//! its rows into the first one's.

mod error;
mod identity;
mod limits;
mod output;
pub mod temporary;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

pub use error::{Error, Result};
pub use limits::{LineLimited, MAX_DATA_FILE, MAX_LINE, MAX_TEXT_FILE};
pub use output::{check_output, create_output, write_output, OutputFile};

/// Opens the input `path` for reading if it is a regular file (links followed), and remembers
/// it as an input of this process. Anything else is refused before it is opened, with an
/// error of kind `InvalidInput` that says what it is.
pub fn open_input(path: &Path) -> io::Result<File> {
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind(&metadata)),
        ));
    }
    let file = File::open(path)?;
    identity::remember_input(path, &file.metadata()?);
    Ok(file)
}

/// The text of the input `path` (see [`open_input`]), refused above [`MAX_TEXT_FILE`] bytes.
pub fn read_text(path: &Path) -> io::Result<String> {
    let file = open_input(path)?;
    let size = file.metadata()?.len();
    if size > MAX_TEXT_FILE {
        return Err(too_large(size, MAX_TEXT_FILE));
    }
    let mut text = String::with_capacity(size as usize);
    file.take(MAX_TEXT_FILE).read_to_string(&mut text)?;
    Ok(text)
}

/// A reader of the data file `path` (see [`open_input`]): at most [`MAX_DATA_FILE`] bytes,
/// lines of at most [`MAX_LINE`] bytes.
pub fn open_data(path: &Path) -> io::Result<LineLimited<File>> {
    let file = open_input(path)?;
    let size = file.metadata()?.len();
    if size > MAX_DATA_FILE {
        return Err(too_large(size, MAX_DATA_FILE));
    }
    Ok(LineLimited::new(file))
}

fn too_large(size: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the file has {} bytes, more than the {} MiB an input file may have",
            size,
            limit >> 20
        ),
    )
}

/// What kind of file `metadata` describes, for the message that refuses it.
fn kind(metadata: &std::fs::Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_devices_are_refused_before_they_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let error = open_input(dir.path()).unwrap_err();
        assert_eq!(error.to_string(), "not a regular file (a folder)");
        #[cfg(unix)]
        assert_eq!(
            open_input(Path::new("/dev/zero")).unwrap_err().to_string(),
            "not a regular file (a device)"
        );
    }

    #[test]
    fn regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        std::fs::write(&path, "x = 1\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "x = 1\n");
    }
}
