//! The cluster commands fail clearly, and say what to do, when there is no cluster.

use std::process::Command;

fn xtask(home: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_operator-xtask-cluster"));
    cmd.env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", home)
        .env("ENVTEST_STATE_DIR", home.join("no-control-plane"));
    cmd
}

#[test]
fn install_without_any_cluster_names_envtest_up() {
    let home = tempfile::tempdir().unwrap();
    let out = xtask(home.path()).arg("install").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no cluster to talk to"), "{stderr}");
    assert!(stderr.contains("`cargo xtask envtest up`"), "{stderr}");
}

#[test]
fn install_against_an_unreachable_cluster_names_the_address_and_the_source() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = home.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster:\n    server: https://127.0.0.1:1\n\
         users:\n- name: gone\n  user: {}\ncontexts:\n- name: gone\n  context: {cluster: gone, user: gone}\n\
         current-context: gone\n",
    )
    .unwrap();
    let out = xtask(home.path())
        .args(["uninstall", "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot reach the cluster at https://127.0.0.1:1/"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("--kubeconfig {}", kubeconfig.display())),
        "{stderr}"
    );
}

#[test]
fn envtest_env_and_status_without_a_control_plane_fail() {
    let home = tempfile::tempdir().unwrap();
    let out = xtask(home.path())
        .args(["envtest", "env"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the local control plane is not running"),
        "{stderr}"
    );
    let out = xtask(home.path())
        .args(["envtest", "status"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
}

#[test]
fn building_the_control_plane_without_go_says_how_to_get_it() {
    let home = tempfile::tempdir().unwrap();
    let out = xtask(home.path())
        .args(["envtest", "build"])
        .env("PATH", home.path())
        .env("ENVTEST_CACHE_DIR", home.path().join("cache"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot run `go`"), "{stderr}");
    assert!(stderr.contains("install Go 1.26 or newer"), "{stderr}");
}
