//! Whether an ELF executable needs a dynamic loader or shared libraries: an image over an
//! empty base has neither, so a binary with a `PT_INTERP` program header or a `DT_NEEDED`
//! entry would not start in it.

use anyhow::{Context as _, Result, bail, ensure};

const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;

/// What makes `elf` depend on files outside itself: the interpreter it asks for and the
/// number of shared libraries it names. Only 64-bit little-endian ELF (the targets we build
/// on) is read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Dependencies {
    pub interpreter: Option<String>,
    pub needed: usize,
}

impl Dependencies {
    pub fn is_static(&self) -> bool {
        self.interpreter.is_none() && self.needed == 0
    }
}

fn u16_at(b: &[u8], at: usize) -> Result<u16> {
    let s = b.get(at..at + 2).context("ELF: truncated")?;
    Ok(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32> {
    let s = b.get(at..at + 4).context("ELF: truncated")?;
    Ok(u32::from_le_bytes(s.try_into()?))
}

fn u64_at(b: &[u8], at: usize) -> Result<u64> {
    let s = b.get(at..at + 8).context("ELF: truncated")?;
    Ok(u64::from_le_bytes(s.try_into()?))
}

/// Reads the program headers of `elf` and its dynamic section.
pub fn dependencies(elf: &[u8]) -> Result<Dependencies> {
    ensure!(elf.starts_with(b"\x7fELF"), "not an ELF file");
    if elf.get(4) != Some(&2) || elf.get(5) != Some(&1) {
        bail!("not a 64-bit little-endian ELF file");
    }
    let phoff = usize::try_from(u64_at(elf, 0x20)?)?;
    let phentsize = usize::from(u16_at(elf, 0x36)?);
    let phnum = usize::from(u16_at(elf, 0x38)?);
    ensure!(phentsize >= 56, "ELF: bad program header size {phentsize}");
    let mut deps = Dependencies::default();
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        let kind = u32_at(elf, ph)?;
        let offset = usize::try_from(u64_at(elf, ph + 8)?)?;
        let filesz = usize::try_from(u64_at(elf, ph + 32)?)?;
        let segment = elf
            .get(offset..offset + filesz)
            .context("ELF: segment out of the file")?;
        match kind {
            PT_INTERP => {
                let end = segment
                    .iter()
                    .position(|&b| b == 0)
                    .unwrap_or(segment.len());
                deps.interpreter = Some(String::from_utf8_lossy(&segment[..end]).into_owned());
            }
            PT_DYNAMIC => {
                for entry in segment.chunks_exact(16) {
                    let tag = u64_at(entry, 0)?;
                    if tag == DT_NULL {
                        break;
                    }
                    if tag == DT_NEEDED {
                        deps.needed += 1;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(deps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test binary itself is linked against libc dynamically (the default): it has an
    /// interpreter and needs libraries. A file that is not ELF is an error.
    #[test]
    fn a_dynamic_executable_has_an_interpreter_and_needs_libraries() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let deps = dependencies(&me).unwrap();
        assert!(!deps.is_static(), "{deps:?}");
        assert!(deps.interpreter.unwrap().contains("ld-linux"));
        assert!(deps.needed > 0);
        assert!(dependencies(b"#!/bin/sh\n").is_err());
        assert!(dependencies(&me[..40]).is_err());
    }

    /// A minimal ELF header with no program headers is static.
    #[test]
    fn no_program_headers_is_static() {
        let mut elf = vec![0u8; 64];
        elf[..4].copy_from_slice(b"\x7fELF");
        elf[4] = 2;
        elf[5] = 1;
        elf[0x36] = 56;
        assert!(dependencies(&elf).unwrap().is_static());
    }
}
