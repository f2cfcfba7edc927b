//! The tar format as far as images need it: a writer of deterministic ustar archives (regular
//! files and directories, fixed owner, mode and time, no user or group names) and a reader of
//! the entries of an archive in memory.

use anyhow::{Result, bail, ensure};

const BLOCK: usize = 512;

/// One entry to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path inside the archive, relative, `/`-separated; a directory ends with `/`.
    pub path: String,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    /// Empty for a directory.
    pub data: Vec<u8>,
}

impl Entry {
    pub fn is_dir(&self) -> bool {
        self.path.ends_with('/')
    }
}

/// The archive of `entries` in the order given, each with modification time `mtime` (seconds
/// since the epoch), ending with the two zero blocks.
pub fn write(entries: &[Entry], mtime: u64) -> Result<Vec<u8>> {
    let size: usize = entries
        .iter()
        .map(|e| BLOCK + e.data.len().div_ceil(BLOCK) * BLOCK)
        .sum::<usize>()
        + 2 * BLOCK;
    let mut out = Vec::with_capacity(size);
    for entry in entries {
        out.extend_from_slice(&header(entry, mtime)?);
        out.extend_from_slice(&entry.data);
        out.resize(out.len().div_ceil(BLOCK) * BLOCK, 0);
    }
    out.resize(out.len() + 2 * BLOCK, 0);
    Ok(out)
}

/// A ustar header: the path in `name`, or split between `prefix` and `name` when longer than
/// 100 bytes.
fn header(entry: &Entry, mtime: u64) -> Result<[u8; BLOCK]> {
    let mut h = [0u8; BLOCK];
    let path = entry.path.as_bytes();
    ensure!(
        !entry.path.is_empty() && !entry.path.starts_with('/'),
        "tar: bad entry path {:?}",
        entry.path
    );
    if path.len() <= 100 {
        h[..path.len()].copy_from_slice(path);
    } else {
        // Split at a `/` so that the prefix holds at most 155 bytes and the name at most 100.
        let trimmed = entry.path.trim_end_matches('/');
        let split = trimmed
            .char_indices()
            .filter(|&(i, c)| c == '/' && i <= 155 && path.len() - i - 1 <= 100)
            .map(|(i, _)| i)
            .next();
        let Some(split) = split else {
            bail!("tar: path too long for ustar: {}", entry.path);
        };
        h[..path.len() - split - 1].copy_from_slice(&path[split + 1..]);
        h[345..345 + split].copy_from_slice(&path[..split]);
    }
    octal(&mut h[100..108], u64::from(entry.mode & 0o7777))?;
    octal(&mut h[108..116], u64::from(entry.uid))?;
    octal(&mut h[116..124], u64::from(entry.gid))?;
    octal(&mut h[124..136], entry.data.len() as u64)?;
    octal(&mut h[136..148], mtime)?;
    h[156] = if entry.is_dir() { b'5' } else { b'0' };
    ensure!(
        !entry.is_dir() || entry.data.is_empty(),
        "tar: directory {} with data",
        entry.path
    );
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    octal(&mut h[329..337], 0)?;
    octal(&mut h[337..345], 0)?;
    // The checksum is computed with its own field as spaces, then written as six digits, NUL,
    // space.
    h[148..156].fill(b' ');
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let digits = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(digits.as_bytes());
    Ok(h)
}

/// `value` in octal, zero-padded, NUL-terminated, filling `field`.
fn octal(field: &mut [u8], value: u64) -> Result<()> {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    ensure!(
        text.len() == width,
        "tar: {value} does not fit a {width}-digit field"
    );
    field[..width].copy_from_slice(text.as_bytes());
    field[width] = 0;
    Ok(())
}

/// One entry read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadEntry {
    pub path: String,
    /// The type flag (`0` file, `5` directory, `2` symlink, ...).
    pub kind: u8,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub mtime: u64,
    pub uname: String,
    pub gname: String,
    pub data: Vec<u8>,
}

/// The entries of the archive `bytes`, in order (ustar, with GNU long names and pax headers
/// skipped over; their paths are not applied). Checks each header's checksum.
pub fn read(bytes: &[u8]) -> Result<Vec<ReadEntry>> {
    let mut entries = Vec::new();
    let mut at = 0;
    let mut long_name: Option<String> = None;
    while at + BLOCK <= bytes.len() {
        let h = &bytes[at..at + BLOCK];
        if h.iter().all(|&b| b == 0) {
            return Ok(entries);
        }
        let stored = parse_octal(&h[148..156])?;
        let mut copy = [0u8; BLOCK];
        copy.copy_from_slice(h);
        copy[148..156].fill(b' ');
        let sum: u64 = copy.iter().map(|&b| u64::from(b)).sum();
        ensure!(sum == stored, "tar: bad header checksum at offset {at}");
        let size = usize::try_from(parse_octal(&h[124..136])?)?;
        let start = at + BLOCK;
        let end = start + size;
        ensure!(end <= bytes.len(), "tar: truncated entry at offset {at}");
        let data = &bytes[start..end];
        at = start + size.div_ceil(BLOCK) * BLOCK;
        let kind = if h[156] == 0 { b'0' } else { h[156] };
        match kind {
            b'L' => {
                long_name = Some(cstr(data));
                continue;
            }
            b'x' | b'g' => continue,
            _ => {}
        }
        let path = match long_name.take() {
            Some(name) => name,
            None => {
                let name = cstr(&h[..100]);
                let prefix = if &h[257..262] == b"ustar" {
                    cstr(&h[345..500])
                } else {
                    String::new()
                };
                if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                }
            }
        };
        entries.push(ReadEntry {
            path,
            kind,
            mode: u32::try_from(parse_octal(&h[100..108])?)?,
            uid: u32::try_from(parse_octal(&h[108..116])?)?,
            gid: u32::try_from(parse_octal(&h[116..124])?)?,
            mtime: parse_octal(&h[136..148])?,
            uname: cstr(&h[265..297]),
            gname: cstr(&h[297..329]),
            data: data.to_vec(),
        });
    }
    bail!("tar: archive ends without its end-of-archive blocks")
}

fn cstr(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

fn parse_octal(field: &[u8]) -> Result<u64> {
    let text = cstr(field);
    let text = text.trim_matches(|c: char| c == ' ' || c == '\0');
    if text.is_empty() {
        return Ok(0);
    }
    u64::from_str_radix(text, 8).map_err(|_| anyhow::anyhow!("tar: bad number field {text:?}"))
}

/// The path `path` as a tar entry names it: no leading `/` or `./`, no trailing `/`.
pub fn normalize(path: &str) -> &str {
    let mut p = path;
    loop {
        if let Some(rest) = p.strip_prefix("./") {
            p = rest;
        } else if let Some(rest) = p.strip_prefix('/') {
            p = rest;
        } else {
            break;
        }
    }
    p.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, data: &[u8]) -> Entry {
        Entry {
            path: path.into(),
            mode: 0o755,
            uid: 65532,
            gid: 65532,
            data: data.to_vec(),
        }
    }

    /// The same entries give the same bytes, the layout of a ustar archive, and read back.
    #[test]
    fn writes_deterministic_ustar_that_reads_back() {
        let entries = vec![
            Entry {
                path: "dir/".into(),
                mode: 0o755,
                uid: 0,
                gid: 0,
                data: vec![],
            },
            file("dir/manager", b"#!binary\n"),
        ];
        let a = write(&entries, 1_700_000_000).unwrap();
        let b = write(&entries, 1_700_000_000).unwrap();
        assert_eq!(a, b);
        // Two headers, one data block, two end blocks.
        assert_eq!(a.len(), 5 * BLOCK);
        assert_eq!(&a[BLOCK..BLOCK + 11], b"dir/manager");
        assert_eq!(&a[BLOCK + 257..BLOCK + 265], b"ustar\x0000");
        // Owner 65532 in octal, no user or group names.
        assert_eq!(&a[BLOCK + 108..BLOCK + 116], b"0177774\0");
        assert!(a[BLOCK + 265..BLOCK + 329].iter().all(|&b| b == 0));
        assert_ne!(write(&entries, 0).unwrap(), a, "the time is in the header");

        let back = read(&a).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].path, "dir/");
        assert_eq!(back[0].kind, b'5');
        assert_eq!(back[1].path, "dir/manager");
        assert_eq!(back[1].kind, b'0');
        assert_eq!(back[1].mode, 0o755);
        assert_eq!((back[1].uid, back[1].gid), (65532, 65532));
        assert_eq!(back[1].mtime, 1_700_000_000);
        assert_eq!(back[1].data, b"#!binary\n");
        assert_eq!(back[1].uname, "");
    }

    /// Paths over 100 bytes go into the prefix field; a broken checksum or a truncated
    /// archive is an error.
    #[test]
    fn long_paths_and_damage() {
        let long = format!("{}/{}", "a".repeat(120), "b".repeat(90));
        let bytes = write(&[file(&long, b"x")], 0).unwrap();
        assert_eq!(read(&bytes).unwrap()[0].path, long);
        let too_long = "c".repeat(101);
        assert!(write(&[file(&too_long, b"")], 0).is_err());

        let mut broken = bytes.clone();
        broken[0] ^= 1;
        assert!(read(&broken).unwrap_err().to_string().contains("checksum"));
        assert!(read(&bytes[..BLOCK + 10]).is_err());
        assert!(read(&bytes[..2 * BLOCK]).is_err(), "no end blocks");
    }

    /// `/manager`, `./manager` and `manager` name the same entry.
    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize("/manager"), "manager");
        assert_eq!(normalize("./manager"), "manager");
        assert_eq!(normalize("etc/"), "etc");
    }
}
