//! Result files in the Reference-FMUs CSV convention: a quoted header `"time","name",...`,
//! then one row per output point.
//!
//! Rows are formatted straight into a byte buffer (no string per value) and written out when
//! the buffer is large or half a second after the last write, so a long run costs no system
//! call per row yet shows its progress on disk. The writer is flushed when it is dropped and
//! by [`CsvWriter::flush`], so every way out of a run (its end, an FMU error, a non-finite
//! value, an interrupt) leaves the rows written so far, each row whole. An FMU that crashes
//! the process inside a call leaves them too: the writer publishes where its complete rows
//! are after each row, and the crash handler writes them out ([`write_pending_after_crash`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fmi_host::float_text::write_float;
use fmi_host::model_description::Values;
use tandem_cosim::{Error, Result};
use tandem_files::{create_output, OutputFile};

// Tests and other crates read numbers the way result files write them from here.
pub use fmi_host::float_text::format_float;

/// Longest time a written row stays in memory only.
const FLUSH_INTERVAL: Duration = Duration::from_millis(500);

/// Buffer size that triggers a write regardless of time.
const BUFFER_LIMIT: usize = 1 << 16;

/// Most rows between two looks at the clock.
const MAX_ROWS_PER_CHECK: u32 = 256;

/// Where the complete rows not yet written are, for the crash handler.
struct Pending {
    /// The file's descriptor (-1 where there are no crash reports).
    descriptor: i32,
    /// Start of the buffer.
    base: AtomicPtr<u8>,
    /// Length of its complete rows.
    complete: AtomicUsize,
}

/// The pending rows of the one result file a crash writes out (the first writer alive claims
/// it; a process of the command line writes one result file).
static CRASH_PENDING: AtomicPtr<Pending> = AtomicPtr::new(ptr::null_mut());

/// A CSV result file being written.
pub struct CsvWriter {
    path: PathBuf,
    file: OutputFile,
    buffer: Vec<u8>,
    columns: usize,
    rows: usize,
    last_write: Instant,
    /// When the clock was last read, and rows to go until it is read again.
    last_check: Instant,
    rows_to_check: u32,
    /// Rows between looks at the clock, adapted to the time rows take.
    rows_per_check: u32,
    /// Boxed: its address is what [`CRASH_PENDING`] holds.
    pending: Box<Pending>,
}

impl CsvWriter {
    /// Creates `path` and writes the header: `time` and then `names`. The file is refused if
    /// it is an input of the run, and held under a lock while it is written (see
    /// [`create_output`]).
    pub fn create(path: &Path, names: &[String]) -> Result<Self> {
        let file = create_output(path)?;
        #[cfg(unix)]
        let descriptor = std::os::fd::AsRawFd::as_raw_fd(&*file);
        #[cfg(not(unix))]
        let descriptor = -1;
        let mut writer = CsvWriter {
            path: path.to_path_buf(),
            file,
            buffer: Vec::with_capacity(BUFFER_LIMIT + 4096),
            columns: names.len(),
            rows: 0,
            last_write: Instant::now(),
            last_check: Instant::now(),
            rows_to_check: 1,
            rows_per_check: 1,
            pending: Box::new(Pending {
                descriptor,
                base: AtomicPtr::new(ptr::null_mut()),
                complete: AtomicUsize::new(0),
            }),
        };
        let _ = CRASH_PENDING.compare_exchange(
            ptr::null_mut(),
            writer.pending_address(),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        quote(&mut writer.buffer, "time");
        for name in names {
            writer.buffer.push(b',');
            quote(&mut writer.buffer, name);
        }
        writer.buffer.push(b'\n');
        writer.flush()?;
        Ok(writer)
    }

    /// Writes one row; `values` holds one batch per group of columns, in header order.
    pub fn write_row(&mut self, time: f64, values: &[Values]) -> Result<()> {
        let count = values.iter().map(Values::len).sum();
        self.check_width(count)?;
        write_float(&mut self.buffer, time);
        for batch in values {
            for i in 0..batch.len() {
                self.buffer.push(b',');
                write_value(&mut self.buffer, batch, i);
            }
        }
        self.end_row()
    }

    /// Writes one row of numbers given as consecutive slices of columns, in header order.
    pub fn write_floats(&mut self, time: f64, values: &[&[f64]]) -> Result<()> {
        let count = values.iter().map(|part| part.len()).sum();
        self.check_width(count)?;
        write_float(&mut self.buffer, time);
        for &value in values.iter().copied().flatten() {
            self.buffer.push(b',');
            write_float(&mut self.buffer, value);
        }
        self.end_row()
    }

    /// Number of data rows written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes every buffered row to the file.
    pub fn flush(&mut self) -> Result<()> {
        self.last_write = Instant::now();
        self.pending.complete.store(0, Ordering::Release);
        let result = self.file.write_all(&self.buffer);
        self.buffer.clear();
        result.map_err(|e| Error::io(&self.path, e))
    }

    fn check_width(&self, count: usize) -> Result<()> {
        if count == self.columns {
            return Ok(());
        }
        Err(Error::invalid_value(
            self.path.display().to_string(),
            format!("a row has {count} values for {} columns", self.columns),
        ))
    }

    /// Ends the row in the buffer and writes the buffer out when it is due.
    fn end_row(&mut self) -> Result<()> {
        self.buffer.push(b'\n');
        self.rows += 1;
        let pending = &self.pending;
        pending
            .base
            .store(self.buffer.as_mut_ptr(), Ordering::Release);
        pending.complete.store(self.buffer.len(), Ordering::Release);
        if self.buffer.len() >= BUFFER_LIMIT || self.write_due() {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether the flush interval has passed since the last write. Reading the clock costs as
    /// much as formatting a number, so it is read about every millisecond of rows: every row
    /// of a slow FMU, every few hundred rows of a fast one.
    fn write_due(&mut self) -> bool {
        self.rows_to_check -= 1;
        if self.rows_to_check > 0 {
            return false;
        }
        let now = Instant::now();
        self.rows_per_check = if now - self.last_check < Duration::from_millis(1) {
            (self.rows_per_check * 2).min(MAX_ROWS_PER_CHECK)
        } else {
            (self.rows_per_check / 2).max(1)
        };
        self.rows_to_check = self.rows_per_check;
        self.last_check = now;
        now - self.last_write >= FLUSH_INTERVAL
    }
}

impl Drop for CsvWriter {
    /// Writes the rows still buffered; an error here has no one left to report to, and the
    /// paths that can report one call [`CsvWriter::flush`] first.
    fn drop(&mut self) {
        let _ = CRASH_PENDING.compare_exchange(
            self.pending_address(),
            ptr::null_mut(),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        let _ = self.file.write_all(&self.buffer);
    }
}

impl CsvWriter {
    fn pending_address(&self) -> *mut Pending {
        &*self.pending as *const Pending as *mut Pending
    }
}

/// Writes the complete rows the result file has not received yet; for the crash handler
/// ([`fmi_host::instance::install_crash_report`]), so async-signal-safe: atomics and write(2)
/// only. Called while an FMU call is in progress, when no row is being formatted; writes at
/// most once.
#[cfg(unix)]
pub fn write_pending_after_crash() {
    let pending = CRASH_PENDING.swap(ptr::null_mut(), Ordering::AcqRel);
    if pending.is_null() {
        return;
    }
    // SAFETY: a writer unregisters its `Pending` before dropping it, and the writer is alive
    // during the FMU call that crashed, so the pointer is valid; the published base and length
    // describe complete rows of the buffer, which is not being changed during the call.
    unsafe {
        let pending = &*pending;
        let base = pending.base.load(Ordering::Acquire);
        let length = pending.complete.load(Ordering::Acquire);
        let mut written = 0;
        while written < length {
            let n = libc::write(
                pending.descriptor,
                base.add(written).cast(),
                length - written,
            );
            if n <= 0 {
                break;
            }
            written += n as usize;
        }
    }
}

/// Without a crash handler there is nothing to write out.
#[cfg(not(unix))]
pub fn write_pending_after_crash() {}

/// Appends `text` in double quotes, inner quotes doubled.
fn quote(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for piece in text.split_inclusive('"') {
        out.extend_from_slice(piece.as_bytes());
        if piece.ends_with('"') {
            out.push(b'"');
        }
    }
    out.push(b'"');
}

/// Appends value `i` of `values`.
fn write_value(out: &mut Vec<u8>, values: &Values, i: usize) {
    let mut number = itoa::Buffer::new();
    match values {
        Values::Float(v) => write_float(out, v[i]),
        Values::Int(v) => out.extend_from_slice(number.format(v[i]).as_bytes()),
        Values::UInt(v) => out.extend_from_slice(number.format(v[i]).as_bytes()),
        Values::Bool(v) => out.push(if v[i] { b'1' } else { b'0' }),
        Values::String(v) => quote(out, &v[i]),
        Values::Binary(v) => {
            for byte in &v[i] {
                let _ = write!(out, "{byte:02x}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stay_in_memory_until_flushed_and_reach_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut writer = CsvWriter::create(&path, &["a \"b\"".into(), "n".into()]).unwrap();
        let header = "\"time\",\"a \"\"b\"\"\",\"n\"\n";
        assert_eq!(std::fs::read_to_string(&path).unwrap(), header);
        writer
            .write_row(0.5, &[Values::Float(vec![1e-7]), Values::Int(vec![-3])])
            .unwrap();
        writer.write_floats(1.0, &[&[2.0], &[4.0]]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), header);
        drop(writer);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{header}0.5,1e-7,-3\n1,2,4\n")
        );
    }

    #[test]
    fn a_row_of_the_wrong_width_is_refused_and_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut writer = CsvWriter::create(&path, &["a".into()]).unwrap();
        let error = writer.write_floats(0.0, &[&[1.0, 2.0]]).unwrap_err();
        assert!(error
            .to_string()
            .contains("a row has 2 values for 1 columns"));
        assert_eq!(writer.rows(), 0);
        writer.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "\"time\",\"a\"\n");
    }
}
