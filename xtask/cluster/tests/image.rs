//! `cargo xtask image` end to end: this workspace's operator image built (static binary,
//! with the `image-test` profile; minutes on a cold target directory), built again to the same digest, pushed to a
//! real registry (go-containerregistry's, built from its Go module on first use) and read back
//! over the registry API; crane, the registry's own client, takes the layout and the archive.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use operator_xtask_cluster::image::{
    self, ImageOptions, Reference, elf, oci,
    push::{self, PushOptions},
    tar,
};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A plain HTTP/1.0 GET (so no chunked answer) to the loopback registry, with no client of
/// ours in between: status, headers (names lowercase), body.
fn get(port: u16, path: &str, accept: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: {accept}\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn crane(registry: &envtest::registry::Registry, args: &[&str]) -> String {
    let out = Command::new(registry.crane()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "crane {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        registry.log()
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "builds the operator's static binary and crane (minutes on first use)"]
fn the_image_is_reproducible_and_round_trips_through_a_real_registry() {
    let root = root();
    // Release without the optimiser (the workspace's `image-test` profile): the same static
    // binary and image, minutes sooner. The deploy test builds it too.
    let mut options = ImageOptions::new(&root);
    options.profile = "image-test".to_string();
    let image = image::build(&options).unwrap();
    assert_eq!(image.reference, "memcached-operator:0.1.0");
    assert!(image.archive.ends_with("image/memcached-operator.tar"));
    assert!(image.layout.ends_with("image/memcached-operator"));

    // Built again: nothing differs.
    let again = image::build(&options).unwrap();
    assert_eq!(again.digest, image.digest);
    let archive = std::fs::read(&image.archive).unwrap();

    // The binary in the image is the static one that was built.
    let binary = std::fs::read(&image.binary).unwrap();
    assert_eq!(binary.len() as u64, image.binary_size);
    assert!(elf::dependencies(&binary).unwrap().is_static());
    assert_eq!(
        image::read_file(&image.archive, "/manager").unwrap(),
        binary
    );
    assert_eq!(image::read_file(&image.layout, "/manager").unwrap(), binary);
    assert_eq!(
        image::manifest_digest(&image.archive).unwrap(),
        image.digest
    );

    // Pushed with oci-client (`push::push`) to a real registry.
    let registry = envtest::registry::Registry::start().unwrap();
    let port = registry.port();
    let target: Reference = format!("{}/memcached-operator:test", registry.host())
        .parse()
        .unwrap();
    let pushed = push::push(&image.layout, &target, &PushOptions::default()).unwrap();
    assert_eq!(pushed.digest, image.digest);

    // The manifest, as the registry serves it.
    let (status, headers, body) = get(
        port,
        "/v2/memcached-operator/manifests/test",
        oci::MANIFEST_MEDIA_TYPE,
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(oci::digest(&body), image.digest);
    assert_eq!(
        header(&headers, "content-type"),
        Some(oci::MANIFEST_MEDIA_TYPE)
    );
    assert_eq!(
        header(&headers, "docker-content-digest"),
        Some(image.digest.as_str())
    );
    let manifest: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(manifest["mediaType"], oci::MANIFEST_MEDIA_TYPE);
    assert_eq!(manifest["config"]["mediaType"], oci::CONFIG_MEDIA_TYPE);
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    assert_eq!(layers[0]["mediaType"], oci::LAYER_MEDIA_TYPE);
    assert_eq!(layers[0]["size"], image.layer_size);

    // The config.
    let config_digest = manifest["config"]["digest"].as_str().unwrap();
    assert_eq!(config_digest, image.config_digest);
    let (status, _, body) = get(
        port,
        &format!("/v2/memcached-operator/blobs/{config_digest}"),
        "*/*",
    );
    assert_eq!(status, 200);
    assert_eq!(oci::digest(&body), config_digest);
    let config: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(config["os"], "linux");
    assert_eq!(config["architecture"], "amd64");
    assert_eq!(config["created"], "1970-01-01T00:00:00Z");
    assert_eq!(config["config"]["User"], "65532:65532");
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/manager"])
    );
    let labels = &config["config"]["Labels"];
    assert_eq!(labels["org.opencontainers.image.version"], "0.1.0");
    assert_eq!(
        labels["org.opencontainers.image.title"],
        "memcached-operator"
    );
    assert!(
        !labels["org.opencontainers.image.source"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let revision = labels["org.opencontainers.image.revision"]
        .as_str()
        .unwrap();
    let commit = revision.strip_suffix("-dirty").unwrap_or(revision);
    assert_eq!(commit.len(), 40, "{revision}");
    assert!(commit.bytes().all(|b| b.is_ascii_hexdigit()), "{revision}");

    // The layer: exactly `manager`, the binary, owned by and executable for 65532.
    let layer_digest = layers[0]["digest"].as_str().unwrap();
    let (status, _, body) = get(
        port,
        &format!("/v2/memcached-operator/blobs/{layer_digest}"),
        "*/*",
    );
    assert_eq!(status, 200);
    assert_eq!(oci::digest(&body), layer_digest);
    let layer = image::layer_tar(&body).unwrap();
    assert_eq!(
        config["rootfs"]["diff_ids"],
        serde_json::json!([oci::digest(&layer)])
    );
    let entries = tar::read(&layer).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(names, ["manager"]);
    assert_eq!(entries[0].mode, 0o755);
    assert_eq!((entries[0].uid, entries[0].gid), (65532, 65532));
    assert!(entries[0].data == binary);

    // crane, the registry's client, finds the pushed image whole, pushes the layout to the
    // same digest and takes the archive (as `docker save` writes it) with our config and
    // layer.
    let reference = target.to_string();
    crane(&registry, &["validate", "--remote", &reference]);
    let from_layout = format!("{}/memcached-operator:from-layout", registry.host());
    let out = crane(
        &registry,
        &["push", image.layout.to_str().unwrap(), &from_layout],
    );
    assert!(out.trim().ends_with(&image.digest), "{out}");
    let from_archive = format!("{}/memcached-operator:from-archive", registry.host());
    crane(
        &registry,
        &["push", image.archive.to_str().unwrap(), &from_archive],
    );
    crane(&registry, &["validate", "--remote", &from_archive]);
    let their_config = crane(&registry, &["config", &from_archive]);
    assert_eq!(
        oci::digest(their_config.trim_end().as_bytes()),
        image.config_digest
    );
    let their_manifest: Value =
        serde_json::from_str(&crane(&registry, &["manifest", &from_archive])).unwrap();
    assert_eq!(their_manifest["layers"][0]["digest"], layer_digest);
    crane(
        &registry,
        &["validate", "--tarball", image.archive.to_str().unwrap()],
    );

    // Nothing was rewritten by the pushes.
    assert!(std::fs::read(&image.archive).unwrap() == archive);
}
