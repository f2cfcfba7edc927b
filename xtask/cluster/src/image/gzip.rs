//! gzip (RFC 1952) around miniz_oxide's deflate, written here so that the compressor is exactly
//! the one Cargo.lock pins (no backend chosen by some other crate's features) and the header
//! holds nothing but the format: no file name, modification time 0, operating system
//! "unknown".

use anyhow::{Result, bail, ensure};

/// The deflate level: the best miniz_oxide has short of its slow "uber" mode.
const LEVEL: u8 = 9;

/// CRC-32 (IEEE) as gzip's trailer wants it.
fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u32; 256];
        for (i, entry) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *entry = c;
        }
        table
    });
    !bytes
        .iter()
        .fold(!0u32, |c, &b| table[usize::from((c as u8) ^ b)] ^ (c >> 8))
}

/// `bytes` compressed, with the same output on every machine.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let deflated = miniz_oxide::deflate::compress_to_vec(bytes, LEVEL);
    let mut out = Vec::with_capacity(deflated.len() + 18);
    // Magic, deflate, no flags, mtime 0, "maximum compression", OS unknown.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
    out.extend_from_slice(&deflated);
    out.extend_from_slice(&crc32(bytes).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out
}

/// Whether `bytes` start like gzip.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// The data of one gzip member (any header fields skipped), checked against its CRC and size.
pub fn decompress(gz: &[u8]) -> Result<Vec<u8>> {
    ensure!(
        gz.len() >= 18 && is_gzip(gz) && gz[2] == 8,
        "not gzip (deflate)"
    );
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        ensure!(gz.len() >= at + 2, "gzip: truncated header");
        at += 2 + usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            let Some(end) = gz.get(at..).and_then(|r| r.iter().position(|&b| b == 0)) else {
                bail!("gzip: truncated header");
            };
            at += end + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    ensure!(gz.len() >= at + 8, "gzip: truncated");
    let body = &gz[at..gz.len() - 8];
    let data = miniz_oxide::inflate::decompress_to_vec(body)
        .map_err(|e| anyhow::anyhow!("gzip: bad deflate data ({e:?})"))?;
    let trailer = &gz[gz.len() - 8..];
    let crc = u32::from_le_bytes(trailer[..4].try_into()?);
    let size = u32::from_le_bytes(trailer[4..].try_into()?);
    ensure!(crc == crc32(&data), "gzip: CRC mismatch");
    ensure!(size == data.len() as u32, "gzip: size mismatch");
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header is fixed, the data round-trips, a damaged trailer is caught.
    #[test]
    fn deterministic_gzip_round_trips() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let data = b"manager manager manager".repeat(500);
        let gz = compress(&data);
        assert_eq!(gz, compress(&data));
        assert_eq!(&gz[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
        assert!(gz.len() < data.len() / 10);
        assert_eq!(decompress(&gz).unwrap(), data);

        let mut broken = gz.clone();
        let n = broken.len();
        broken[n - 6] ^= 1;
        assert!(decompress(&broken).unwrap_err().to_string().contains("CRC"));
        assert!(decompress(b"not gzip").is_err());
    }

    /// A header with a file name (as `gzip file` writes) is read past.
    #[test]
    fn reads_headers_with_a_name() {
        let data = b"hello";
        let plain = compress(data);
        let mut named = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3];
        named.extend_from_slice(b"hello.txt\0");
        named.extend_from_slice(&plain[10..]);
        assert_eq!(decompress(&named).unwrap(), data);
    }
}
