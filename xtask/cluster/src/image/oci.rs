//! The image itself: its one layer, its config, its OCI manifest and index (oci-spec's
//! types, written as canonical JSON), and the two forms it is written in (an OCI image layout
//! directory and one archive holding that layout plus the `manifest.json` of `docker save`).
//! Every byte is a function of the binary, the labels and the time given: nothing of the
//! machine, the clock or the user leaks in.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};
use oci_spec::image::{
    ConfigBuilder, Descriptor, DescriptorBuilder, Digest, HistoryBuilder,
    ImageConfigurationBuilder, ImageIndexBuilder, ImageManifestBuilder, MediaType, Os,
    RootFsBuilder,
};
use serde::Serialize;
use serde_json::json;

use super::{gzip, tar};

pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
pub const INDEX_MEDIA_TYPE: &str = "application/vnd.oci.image.index.v1+json";
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.image.config.v1+json";
pub const LAYER_MEDIA_TYPE: &str = "application/vnd.oci.image.layer.v1.tar+gzip";

/// The user and group the image runs as: distroless's `nonroot`.
pub const NONROOT: u32 = 65532;
/// Where the binary is in the image, and its entrypoint.
pub const ENTRYPOINT: &str = "/manager";

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in d.as_ref() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The hex part of a `sha256:` digest.
pub fn hex(digest: &str) -> &str {
    digest.strip_prefix("sha256:").unwrap_or(digest)
}

/// The image's labels (`org.opencontainers.image.*`) and what else varies between images.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// Where the sources are (git remote, else the repository's path).
    pub source: String,
    /// The git commit, `-dirty` when the tree has changes.
    pub revision: String,
    /// The operator package's version.
    pub version: String,
    /// The project's name.
    pub title: String,
    /// `amd64`, `arm64`, ...
    pub architecture: String,
    /// Seconds since the epoch for every time in the image (SOURCE_DATE_EPOCH, else 0).
    pub epoch: u64,
}

/// A blob: its bytes and its descriptor's parts.
#[derive(Debug, Clone)]
pub struct Blob {
    pub media_type: &'static str,
    pub digest: String,
    pub bytes: Vec<u8>,
}

impl Blob {
    fn new(media_type: &'static str, bytes: Vec<u8>) -> Blob {
        Blob {
            media_type,
            digest: digest(&bytes),
            bytes,
        }
    }

    /// Its descriptor, as the manifest and the index refer to it.
    pub fn descriptor(&self) -> Result<Descriptor> {
        let digest: Digest = self.digest.parse()?;
        Ok(DescriptorBuilder::default()
            .media_type(MediaType::from(self.media_type))
            .digest(digest)
            .size(self.bytes.len() as u64)
            .build()?)
    }
}

/// The canonical JSON of `value` (keys sorted at every level, no spaces), as the image spec
/// recommends: oci-spec keeps labels and annotations in hash maps, and the bytes, so the
/// digests, must not depend on the order those iterate in.
fn canonical_json<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, olpc_cjson::CanonicalFormatter::new());
    value.serialize(&mut ser)?;
    Ok(out)
}

/// The assembled image.
#[derive(Debug, Clone)]
pub struct Image {
    pub layer: Blob,
    /// The digest of the uncompressed layer (the config's `diff_ids`).
    pub diff_id: String,
    pub config: Blob,
    pub manifest: Blob,
}

impl Image {
    /// The blobs in the order a registry wants them (the manifest's references first).
    pub fn blobs(&self) -> [&Blob; 3] {
        [&self.layer, &self.config, &self.manifest]
    }
}

/// RFC 3339 UTC of `secs` since the epoch.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The labels of the image.
pub fn labels(meta: &Metadata) -> BTreeMap<String, String> {
    [
        ("org.opencontainers.image.source", &meta.source),
        ("org.opencontainers.image.revision", &meta.revision),
        ("org.opencontainers.image.version", &meta.version),
        ("org.opencontainers.image.title", &meta.title),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.clone()))
    .collect()
}

/// The image of `binary` with `meta`: one layer holding `/manager` (0755, owned by 65532),
/// its config and its manifest.
pub fn assemble(binary: &[u8], meta: &Metadata) -> Result<Image> {
    let layer_tar = tar::write(
        &[tar::Entry {
            path: tar::normalize(ENTRYPOINT).to_string(),
            mode: 0o755,
            uid: NONROOT,
            gid: NONROOT,
            data: binary.to_vec(),
        }],
        meta.epoch,
    )?;
    let diff_id = digest(&layer_tar);
    let layer = Blob::new(LAYER_MEDIA_TYPE, gzip::compress(&layer_tar));
    let created = rfc3339(meta.epoch);
    let config = ImageConfigurationBuilder::default()
        .architecture(meta.architecture.as_str())
        .os(Os::Linux)
        .created(created.clone())
        .config(
            ConfigBuilder::default()
                .user(format!("{NONROOT}:{NONROOT}"))
                .entrypoint(vec![ENTRYPOINT.to_string()])
                .working_dir("/")
                .labels(labels(meta).into_iter().collect::<HashMap<_, _>>())
                .build()?,
        )
        .rootfs(
            RootFsBuilder::default()
                .typ("layers")
                .diff_ids(vec![diff_id.clone()])
                .build()?,
        )
        .history(vec![
            HistoryBuilder::default()
                .created(created.clone())
                .created_by("cargo xtask image")
                .comment(format!(
                    "{ENTRYPOINT}: the operator's static release binary"
                ))
                .build()?,
        ])
        .build()?;
    let config = Blob::new(CONFIG_MEDIA_TYPE, canonical_json(&config)?);
    let manifest = ImageManifestBuilder::default()
        .schema_version(2u32)
        .media_type(MediaType::ImageManifest)
        .config(config.descriptor()?)
        .layers(vec![layer.descriptor()?])
        .annotations(HashMap::from([(
            "org.opencontainers.image.created".to_string(),
            created,
        )]))
        .build()?;
    let manifest = Blob::new(MANIFEST_MEDIA_TYPE, canonical_json(&manifest)?);
    Ok(Image {
        layer,
        diff_id,
        config,
        manifest,
    })
}

/// `index.json` of the layout: the one manifest, named by its tag (as the OCI layout's
/// `org.opencontainers.image.ref.name` says) and by its whole reference (containerd's
/// `io.containerd.image.name`, what `docker load` and `ctr import` name the image after).
pub fn index_json(image: &Image, reference: &super::Reference) -> Result<Vec<u8>> {
    let mut desc = image.manifest.descriptor()?;
    desc.set_annotations(Some(HashMap::from([
        (
            "io.containerd.image.name".to_string(),
            reference.full_name(),
        ),
        (
            "org.opencontainers.image.ref.name".to_string(),
            reference.tag.clone(),
        ),
    ])));
    let index = ImageIndexBuilder::default()
        .schema_version(2u32)
        .media_type(MediaType::ImageIndex)
        .manifests(vec![desc])
        .build()?;
    canonical_json(&index)
}

/// `oci-layout`.
pub const OCI_LAYOUT: &[u8] = br#"{"imageLayoutVersion":"1.0.0"}"#;

/// `manifest.json` of `docker save`: the config and the layers as paths in the archive, and
/// the reference the image is loaded as.
pub fn docker_manifest_json(image: &Image, reference: &super::Reference) -> Result<Vec<u8>> {
    Ok(serde_json::to_vec(&json!([{
        "Config": blob_path(&image.config.digest),
        "RepoTags": [reference.to_string()],
        "Layers": [blob_path(&image.layer.digest)],
    }]))?)
}

/// `blobs/sha256/<hex>`.
pub fn blob_path(digest: &str) -> String {
    format!("blobs/sha256/{}", hex(digest))
}

/// The files of the layout, path and bytes, sorted by path.
pub fn layout_files(image: &Image, reference: &super::Reference) -> Result<Vec<(String, Vec<u8>)>> {
    let mut files: Vec<(String, Vec<u8>)> = image
        .blobs()
        .into_iter()
        .map(|b| (blob_path(&b.digest), b.bytes.clone()))
        .collect();
    files.push(("index.json".into(), index_json(image, reference)?));
    files.push(("oci-layout".into(), OCI_LAYOUT.to_vec()));
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    Ok(files)
}

/// The archive: the layout's files plus `manifest.json`, under `blobs/` and `blobs/sha256/`,
/// in path order, owned by root, at `epoch`.
pub fn archive(image: &Image, reference: &super::Reference, epoch: u64) -> Result<Vec<u8>> {
    let mut files = layout_files(image, reference)?;
    files.push((
        "manifest.json".into(),
        docker_manifest_json(image, reference)?,
    ));
    let mut entries: Vec<tar::Entry> = ["blobs/", "blobs/sha256/"]
        .into_iter()
        .map(|dir| tar::Entry {
            path: dir.into(),
            mode: 0o755,
            uid: 0,
            gid: 0,
            data: Vec::new(),
        })
        .collect();
    entries.extend(files.into_iter().map(|(path, data)| tar::Entry {
        path,
        mode: 0o644,
        uid: 0,
        gid: 0,
        data,
    }));
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    tar::write(&entries, epoch)
}

/// Writes `bytes` to `path` through a temporary file beside it, renamed into place: a reader
/// sees the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("a path without a parent")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path)
        .with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

/// Writes the layout into `dir`: the blobs first (each named by its digest), `oci-layout`,
/// then `index.json`, the file that makes them an image, last; blobs of earlier builds that
/// the new index does not reference are removed.
pub fn write_layout(dir: &Path, image: &Image, reference: &super::Reference) -> Result<()> {
    let files = layout_files(image, reference)?;
    let (index, rest): (Vec<_>, Vec<_>) = files.into_iter().partition(|(p, _)| p == "index.json");
    for (path, bytes) in &rest {
        let target = dir.join(path);
        let unchanged = path.starts_with("blobs/")
            && std::fs::metadata(&target).is_ok_and(|m| m.len() == bytes.len() as u64)
            && std::fs::read(&target).is_ok_and(|old| digest(&old) == digest(bytes));
        if !unchanged {
            write_atomic(&target, bytes)?;
        }
    }
    for (path, bytes) in &index {
        write_atomic(&dir.join(path), bytes)?;
    }
    let blobs = dir.join("blobs/sha256");
    let keep: Vec<String> = image
        .blobs()
        .iter()
        .map(|b| hex(&b.digest).to_string())
        .collect();
    for entry in
        std::fs::read_dir(&blobs).with_context(|| format!("reading {}", blobs.display()))?
    {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_blob = name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit());
        if is_blob && !keep.contains(&name) {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("removing {}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::Reference;
    use serde_json::Value;

    pub(crate) fn meta() -> Metadata {
        Metadata {
            source: "https://example.com/operator.git".into(),
            revision: "0123456789abcdef0123456789abcdef01234567".into(),
            version: "0.1.0".into(),
            title: "memcached-operator".into(),
            architecture: "amd64".into(),
            epoch: 0,
        }
    }

    /// The same binary and metadata give the same bytes for every blob; the layer's tar and
    /// gzip carry no time, name or owner name of this machine.
    #[test]
    fn the_same_inputs_give_the_same_image() {
        let binary = b"\x7fELF pretend binary".repeat(1000);
        let a = assemble(&binary, &meta()).unwrap();
        let b = assemble(&binary, &meta()).unwrap();
        assert_eq!(a.manifest.bytes, b.manifest.bytes);
        assert_eq!(a.layer.bytes, b.layer.bytes);
        assert_eq!(a.manifest.digest, b.manifest.digest);
        // oci-spec's labels and annotations are hash maps, each seeded anew: the bytes are
        // the same whatever order they iterate in, because they are canonical (keys sorted at
        // every level, as a BTreeMap-backed `Value` writes them back).
        for _ in 0..20 {
            assert_eq!(
                assemble(&binary, &meta()).unwrap().config.bytes,
                a.config.bytes
            );
        }
        let reference: Reference = "op:1".parse().unwrap();
        for bytes in [
            &a.config.bytes,
            &a.manifest.bytes,
            &index_json(&a, &reference).unwrap(),
        ] {
            let value: Value = serde_json::from_slice(bytes).unwrap();
            assert_eq!(&serde_json::to_vec(&value).unwrap(), bytes);
        }

        // gzip header: magic, deflate, no flags (no name), mtime 0, OS unknown.
        let gz = &a.layer.bytes;
        assert_eq!(&gz[..4], &[0x1f, 0x8b, 8, 0]);
        assert_eq!(&gz[4..8], &[0, 0, 0, 0]);
        assert_eq!(gz[9], 255);
        let tar_bytes = gzip::decompress(gz).unwrap();
        assert_eq!(digest(&tar_bytes), a.diff_id);
        let entries = tar::read(&tar_bytes).unwrap();
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert_eq!(e.path, "manager");
        assert_eq!((e.mode, e.uid, e.gid, e.mtime), (0o755, 65532, 65532, 0));
        assert_eq!((e.uname.as_str(), e.gname.as_str()), ("", ""));
        assert_eq!(e.data, binary);

        // Another time, revision or binary is another image.
        let later = Metadata {
            epoch: 1_700_000_000,
            ..meta()
        };
        assert_ne!(
            assemble(&binary, &later).unwrap().manifest.digest,
            a.manifest.digest
        );
        let dirty = Metadata {
            revision: format!("{}-dirty", meta().revision),
            ..meta()
        };
        let d = assemble(&binary, &dirty).unwrap();
        assert_ne!(d.manifest.digest, a.manifest.digest);
        assert_eq!(
            d.layer.digest, a.layer.digest,
            "labels are not in the layer"
        );
    }

    /// Digests are SHA-256 of the exact bytes, the manifest points at the config and layer by
    /// those digests and sizes, the config says who runs what.
    #[test]
    fn config_and_manifest_reference_each_other_by_digest() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let image = assemble(b"binary", &meta()).unwrap();
        assert_eq!(image.manifest.digest, digest(&image.manifest.bytes));
        let manifest: Value = serde_json::from_slice(&image.manifest.bytes).unwrap();
        assert_eq!(manifest["schemaVersion"], 2);
        assert_eq!(manifest["mediaType"], MANIFEST_MEDIA_TYPE);
        assert_eq!(manifest["config"]["digest"], image.config.digest.as_str());
        assert_eq!(manifest["config"]["mediaType"], CONFIG_MEDIA_TYPE);
        assert_eq!(manifest["config"]["size"], image.config.bytes.len());
        assert_eq!(manifest["layers"][0]["digest"], image.layer.digest.as_str());
        assert_eq!(manifest["layers"][0]["mediaType"], LAYER_MEDIA_TYPE);
        assert_eq!(manifest["layers"][0]["size"], image.layer.bytes.len());

        let config: Value = serde_json::from_slice(&image.config.bytes).unwrap();
        assert_eq!(config["architecture"], "amd64");
        assert_eq!(config["os"], "linux");
        assert_eq!(config["created"], "1970-01-01T00:00:00Z");
        assert_eq!(config["config"]["User"], "65532:65532");
        assert_eq!(config["config"]["Entrypoint"], json!(["/manager"]));
        assert_eq!(config["rootfs"]["diff_ids"], json!([image.diff_id]));
        let labels = &config["config"]["Labels"];
        assert_eq!(labels["org.opencontainers.image.version"], "0.1.0");
        assert_eq!(
            labels["org.opencontainers.image.title"],
            "memcached-operator"
        );
        assert_eq!(
            labels["org.opencontainers.image.revision"],
            "0123456789abcdef0123456789abcdef01234567"
        );
        assert_eq!(
            labels["org.opencontainers.image.source"],
            "https://example.com/operator.git"
        );
    }

    /// `docker save`'s manifest.json: one image, its config and layers as paths of blobs in
    /// the archive, its reference as the one repo tag; index.json names the reference.
    #[test]
    fn the_archive_holds_the_layout_and_docker_manifest() {
        let image = assemble(b"binary", &meta()).unwrap();
        let reference: Reference = "memcached-operator:0.1.0".parse().unwrap();
        let docker: Value =
            serde_json::from_slice(&docker_manifest_json(&image, &reference).unwrap()).unwrap();
        let hexes = |d: &str| format!("blobs/sha256/{}", hex(d));
        assert_eq!(
            docker,
            json!([{
                "Config": hexes(&image.config.digest),
                "RepoTags": ["memcached-operator:0.1.0"],
                "Layers": [hexes(&image.layer.digest)],
            }])
        );
        let index: Value =
            serde_json::from_slice(&index_json(&image, &reference).unwrap()).unwrap();
        assert_eq!(
            index["manifests"][0]["digest"],
            image.manifest.digest.as_str()
        );
        assert_eq!(
            index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"],
            "0.1.0"
        );
        assert_eq!(
            index["manifests"][0]["annotations"]["io.containerd.image.name"],
            "docker.io/library/memcached-operator:0.1.0"
        );

        let bytes = archive(&image, &reference, 0).unwrap();
        assert_eq!(bytes, archive(&image, &reference, 0).unwrap());
        let entries = tar::read(&bytes).unwrap();
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        let mut blobs: Vec<String> = image.blobs().iter().map(|b| hexes(&b.digest)).collect();
        blobs.sort();
        let mut expected = vec!["blobs/".to_string(), "blobs/sha256/".to_string()];
        expected.extend(blobs);
        expected.extend(["index.json", "manifest.json", "oci-layout"].map(String::from));
        assert_eq!(paths, expected);
        for e in &entries {
            if e.path.starts_with("blobs/sha256/") && e.kind == b'0' {
                assert_eq!(format!("blobs/sha256/{}", hex(&digest(&e.data))), e.path);
            }
        }
    }

    /// Layout writing replaces the files of an earlier image and drops its blobs.
    #[test]
    fn writes_a_layout_and_drops_stale_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let reference: Reference = "memcached-operator:0.1.0".parse().unwrap();
        let first = assemble(b"one", &meta()).unwrap();
        write_layout(dir.path(), &first, &reference).unwrap();
        let second = assemble(b"two", &meta()).unwrap();
        write_layout(dir.path(), &second, &reference).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path().join("blobs/sha256"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let mut expected: Vec<String> = second
            .blobs()
            .iter()
            .map(|b| hex(&b.digest).to_string())
            .collect();
        expected.sort();
        assert_eq!(names, expected);
        assert_eq!(
            std::fs::read(dir.path().join("oci-layout")).unwrap(),
            OCI_LAYOUT
        );
    }

    #[test]
    fn formats_times_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
