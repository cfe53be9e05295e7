//! A look at a Linux FMU binary before it is loaded. The loader maps the file's segments
//! without checking that the file holds them: a truncated binary then kills the process with
//! SIGBUS at the first touch of a missing page. Reading the headers first turns that, and a
//! binary for another machine, into an error naming the file.

use std::path::Path;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Endianness, FileKind};

use super::Error;

#[cfg(target_arch = "x86_64")]
const MACHINE: (elf::Machine, &str) = (elf::EM_X86_64, "x86_64");
#[cfg(target_arch = "aarch64")]
const MACHINE: (elf::Machine, &str) = (elf::EM_AARCH64, "aarch64");

/// Checks that `path` is a 64-bit ELF file for this machine whose program headers and loaded
/// segments lie within the file; `name` is how errors refer to it.
pub fn check(path: &Path, name: &Path) -> Result<(), Error> {
    let bad = |message: String| Error::Load {
        path: name.to_path_buf(),
        message,
    };
    let data = std::fs::read(path).map_err(|e| Error::Read {
        path: name.to_path_buf(),
        source: e,
    })?;
    let data = data.as_slice();
    match FileKind::parse(data) {
        Ok(FileKind::Elf64) => {}
        Ok(FileKind::Elf32) => {
            return Err(bad(
                "a 32-bit binary cannot be loaded by a 64-bit process".into()
            ))
        }
        _ => return Err(bad("not an ELF shared library".into())),
    }
    let damaged = |e: object::Error| bad(format!("damaged ELF file ({} bytes): {e}", data.len()));
    let header = elf::FileHeader64::<Endianness>::parse(data).map_err(damaged)?;
    let endian = header.endian().map_err(damaged)?;
    let machine = header.e_machine(endian);
    if machine != MACHINE.0 {
        return Err(bad(format!(
            "built for ELF machine {}, not for {} ({})",
            machine.0, MACHINE.1, MACHINE.0 .0
        )));
    }
    for segment in header.program_headers(endian, data).map_err(damaged)? {
        if segment.p_type(endian) == elf::PT_LOAD {
            segment.data(endian, data).map_err(|_| {
                let (offset, size) = segment.file_range(endian);
                bad(format!(
                    "damaged ELF file: a segment needs bytes {offset} to {} but the file has {} \
                     (truncated?)",
                    offset + size,
                    data.len()
                ))
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This test binary is an ELF file for this machine.
    fn own_binary() -> Vec<u8> {
        std::fs::read(std::env::current_exe().unwrap()).unwrap()
    }

    fn check_bytes(bytes: &[u8]) -> Result<(), String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib.so");
        std::fs::write(&path, bytes).unwrap();
        check(&path, Path::new("x.fmu/lib.so")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_whole_binary_passes_and_damaged_ones_are_named() {
        let binary = own_binary();
        check_bytes(&binary).unwrap();
        let truncated = check_bytes(&binary[..1000]).unwrap_err();
        assert!(truncated.contains("x.fmu/lib.so"), "{truncated}");
        assert!(truncated.contains("the file has 1000"), "{truncated}");
        let text = check_bytes(b"#!/bin/sh\n").unwrap_err();
        assert!(text.contains("not an ELF shared library"), "{text}");
        let mut foreign = binary[..64].to_vec();
        foreign[18] = 40; // EM_ARM, little-endian u16 at offset 18
        foreign[19] = 0;
        let foreign = check_bytes(&foreign).unwrap_err();
        assert!(foreign.contains("machine 40"), "{foreign}");
    }
}
