//! How much the entries of an archive (an FMU or an SSP package) may unpack to: the limits
//! that keep a zip bomb from taking the machine's memory or disk. An entry's header is checked
//! before anything of it is unpacked, and the bytes actually decompressed are counted while it
//! is, since the header is written by whoever made the archive.

use std::io::{self, Read, Write};

/// The most one entry unpacked to disk (binaries, resources, the files of an SSP package) may
/// hold, and the most all the entries of one archive may hold together: far above any shared
/// library or resource table of an FMU, low enough that a bomb fails before it fills a disk.
pub const MAX_UNPACKED: u64 = 4 << 30;

/// The most an XML entry read into memory (modelDescription.xml, the adjoint manifest, the
/// description and parameter files of an SSP package) may hold: the descriptions of the
/// largest Modelica models are some tens of MB.
pub const MAX_XML: u64 = 64 << 20;

/// The highest compression ratio (unpacked bytes per byte in the archive) of an entry, and of
/// all the entries of an archive together, above [`RATIO_FLOOR`]. Binaries compress about
/// 3:1 and XML 10-30:1; deflate cannot go beyond about 1030:1, which a file of zeros reaches,
/// so a limit near that would let through any bomb made a little less regular. 100:1 is the
/// default of Apache POI's zip-bomb guard as well.
pub const MAX_RATIO: u64 = 100;

/// Entries, and archives, that unpack to no more than this may have any ratio: a few MB are
/// harmless however well they compress.
pub const RATIO_FLOOR: u64 = 4 << 20;

/// `bytes` for a message: in GiB, MiB or KiB when a whole number of them, else in bytes.
pub fn size_text(bytes: u64) -> String {
    for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

/// Checks an entry's header: its declared uncompressed size against `limit` and its
/// compression ratio against [`MAX_RATIO`]. The error is the problem, for a message that
/// names the archive and the entry.
pub fn check_header(declared: u64, compressed: u64, limit: u64) -> Result<(), String> {
    if declared > limit {
        return Err(format!(
            "uncompressed size exceeds {} (zip bomb?)",
            size_text(limit)
        ));
    }
    if exceeds_ratio(declared, compressed) {
        return Err(format!(
            "compression ratio exceeds {MAX_RATIO}:1 (zip bomb?)"
        ));
    }
    Ok(())
}

fn exceeds_ratio(unpacked: u64, compressed: u64) -> bool {
    unpacked > RATIO_FLOOR && unpacked > compressed.saturating_mul(MAX_RATIO)
}

/// What the entries of one archive unpacked so far declared, held against the limits for the
/// whole archive: many entries, each small enough to pass, must not add up to a bomb.
#[derive(Debug, Default)]
pub struct Budget {
    unpacked: u64,
    compressed: u64,
}

impl Budget {
    /// Checks the header of the next entry to unpack (see [`check_header`]) and the archive's
    /// totals with it, and counts it. The bytes that come out are held to `declared` by
    /// [`copy_within`], so the totals bound what is written.
    pub fn admit(&mut self, declared: u64, compressed: u64, limit: u64) -> Result<(), String> {
        check_header(declared, compressed, limit)?;
        let unpacked = self.unpacked.saturating_add(declared);
        let compressed = self.compressed.saturating_add(compressed);
        if unpacked > MAX_UNPACKED {
            return Err(format!(
                "the entries unpacked up to this one exceed {} together (zip bomb?)",
                size_text(MAX_UNPACKED)
            ));
        }
        if exceeds_ratio(unpacked, compressed) {
            return Err(format!(
                "the entries unpacked up to this one exceed a compression ratio of \
                 {MAX_RATIO}:1 together (zip bomb?)"
            ));
        }
        self.unpacked = unpacked;
        self.compressed = compressed;
        Ok(())
    }
}

/// Why [`copy_within`] failed.
#[derive(Debug)]
pub enum CopyError {
    /// Reading (decompressing, checking the CRC) or writing failed.
    Io(io::Error),
    /// More bytes came out than the header declared; the problem, for the message.
    Overrun(String),
}

/// Copies `entry`, whose header declares `declared` uncompressed bytes, into `out`, and fails
/// as soon as a byte more comes out: the header's size, checked by [`check_header`], is then
/// a bound on what is written whatever the compressed data holds.
pub fn copy_within(
    entry: impl Read,
    declared: u64,
    out: &mut impl Write,
) -> Result<u64, CopyError> {
    let copied =
        io::copy(&mut entry.take(declared.saturating_add(1)), out).map_err(CopyError::Io)?;
    if copied > declared {
        return Err(CopyError::Overrun(format!(
            "unpacks to more than the {} its header declares (zip bomb?)",
            size_text(declared)
        )));
    }
    Ok(copied)
}

/// The whole of `entry`, whose header declares `declared` bytes, in memory (see
/// [`copy_within`]).
pub fn read_within(entry: impl Read, declared: u64) -> Result<Vec<u8>, CopyError> {
    // The header may lie, so the declared size only sizes the first allocation, within bounds.
    let mut bytes = Vec::with_capacity(declared.min(1 << 24) as usize);
    copy_within(entry, declared, &mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_in_the_largest_whole_unit() {
        assert_eq!(size_text(MAX_UNPACKED), "4 GiB");
        assert_eq!(size_text(MAX_XML), "64 MiB");
        assert_eq!(size_text(3 << 10), "3 KiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }

    #[test]
    fn a_header_beyond_the_limit_or_the_ratio_is_refused() {
        assert!(check_header(MAX_XML, MAX_XML / 3, MAX_XML).is_ok());
        let too_large = check_header(MAX_XML + 1, MAX_XML, MAX_XML).unwrap_err();
        assert_eq!(too_large, "uncompressed size exceeds 64 MiB (zip bomb?)");
        let bomb = check_header(1 << 30, 1 << 20, MAX_UNPACKED).unwrap_err();
        assert_eq!(bomb, "compression ratio exceeds 100:1 (zip bomb?)");
        // Small files may compress as well as they like.
        assert!(check_header(RATIO_FLOOR, 1, MAX_XML).is_ok());
    }

    #[test]
    fn many_entries_may_not_add_up_to_a_bomb() {
        let mut budget = Budget::default();
        // Each below the floor at any ratio; together beyond it at 2000:1.
        for _ in 0..2 {
            budget
                .admit(RATIO_FLOOR / 2, RATIO_FLOOR / 2000, MAX_XML)
                .unwrap();
        }
        let problem = budget
            .admit(RATIO_FLOOR / 2, RATIO_FLOOR / 2000, MAX_XML)
            .unwrap_err();
        assert!(
            problem.contains("compression ratio of 100:1 together"),
            "{problem}"
        );

        let mut budget = Budget::default();
        budget
            .admit(MAX_UNPACKED - 1, MAX_UNPACKED / 2, MAX_UNPACKED)
            .unwrap();
        let problem = budget.admit(2, 2, MAX_UNPACKED).unwrap_err();
        assert!(problem.contains("exceed 4 GiB together"), "{problem}");
    }

    #[test]
    fn the_bytes_that_come_out_are_counted_not_the_header_trusted() {
        let mut out = Vec::new();
        assert_eq!(copy_within(&[7u8; 10][..], 10, &mut out).unwrap(), 10);
        assert_eq!(out, [7; 10]);
        // A header declaring 10 bytes over data of a million: at most one byte more is read.
        let mut out = Vec::new();
        let lying = io::repeat(0).take(1 << 20);
        match copy_within(lying, 10, &mut out) {
            Err(CopyError::Overrun(problem)) => {
                assert!(problem.contains("more than the 10 bytes"), "{problem}")
            }
            other => panic!("expected an overrun, got {other:?}"),
        }
        assert_eq!(out.len(), 11);
        assert!(matches!(
            read_within(io::repeat(1), 1 << 10),
            Err(CopyError::Overrun(_))
        ));
        assert_eq!(read_within(&b"abc"[..], 3).unwrap(), b"abc");
    }
}
