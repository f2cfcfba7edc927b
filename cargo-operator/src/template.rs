//! The scaffold's files, kept as templates under `templates/` with `{{name}}` holes.

/// `(path in the project, template)` of what `init` writes; `crate/` is the operator crate's
/// directory, `gitignore` is `.gitignore`, and a manifest's template is `Cargo.toml.in`: cargo
/// leaves a directory with a `Cargo.toml` out of the published package, as another package.
pub const INIT: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../templates/init/Cargo.toml.in"),
    ),
    (
        ".cargo/config.toml",
        include_str!("../templates/init/.cargo/config.toml"),
    ),
    (".ci/run", include_str!("../templates/init/.ci/run")),
    (".gitignore", include_str!("../templates/init/gitignore")),
    (
        "PROJECT.toml",
        include_str!("../templates/init/PROJECT.toml"),
    ),
    ("README.md", include_str!("../templates/init/README.md")),
    (
        "crate/Cargo.toml",
        include_str!("../templates/init/crate/Cargo.toml.in"),
    ),
    (
        "crate/src/main.rs",
        include_str!("../templates/init/crate/src/main.rs"),
    ),
    (
        "crate/src/lib.rs",
        include_str!("../templates/init/crate/src/lib.rs"),
    ),
    (
        "crate/src/api/mod.rs",
        include_str!("../templates/init/crate/src/api/mod.rs"),
    ),
    (
        "crate/src/controllers/mod.rs",
        include_str!("../templates/init/crate/src/controllers/mod.rs"),
    ),
    (
        "xtask/Cargo.toml",
        include_str!("../templates/init/xtask/Cargo.toml.in"),
    ),
    (
        "xtask/src/main.rs",
        include_str!("../templates/init/xtask/src/main.rs"),
    ),
    (
        "xtask/cluster/Cargo.toml",
        include_str!("../templates/init/xtask/cluster/Cargo.toml.in"),
    ),
    (
        "xtask/cluster/src/main.rs",
        include_str!("../templates/init/xtask/cluster/src/main.rs"),
    ),
    (
        "config/crd/kustomization.yaml",
        include_str!("../templates/init/config/crd/kustomization.yaml"),
    ),
    (
        "config/default/kustomization.yaml",
        include_str!("../templates/init/config/default/kustomization.yaml"),
    ),
    (
        "config/default/manager_metrics_patch.yaml",
        include_str!("../templates/init/config/default/manager_metrics_patch.yaml"),
    ),
    (
        "config/default/metrics_service.yaml",
        include_str!("../templates/init/config/default/metrics_service.yaml"),
    ),
    (
        "config/manager/kustomization.yaml",
        include_str!("../templates/init/config/manager/kustomization.yaml"),
    ),
    (
        "config/manager/manager.yaml",
        include_str!("../templates/init/config/manager/manager.yaml"),
    ),
    (
        "config/rbac/kustomization.yaml",
        include_str!("../templates/init/config/rbac/kustomization.yaml"),
    ),
    (
        "config/rbac/leader_election_role_binding.yaml",
        include_str!("../templates/init/config/rbac/leader_election_role_binding.yaml"),
    ),
    (
        "config/prometheus/kustomization.yaml",
        include_str!("../templates/init/config/prometheus/kustomization.yaml"),
    ),
    (
        "config/prometheus/monitor.yaml",
        include_str!("../templates/init/config/prometheus/monitor.yaml"),
    ),
    (
        "config/prometheus/monitor_tls_patch.yaml",
        include_str!("../templates/init/config/prometheus/monitor_tls_patch.yaml"),
    ),
    (
        "config/network-policy/kustomization.yaml",
        include_str!("../templates/init/config/network-policy/kustomization.yaml"),
    ),
    (
        "config/network-policy/allow-metrics-traffic.yaml",
        include_str!("../templates/init/config/network-policy/allow-metrics-traffic.yaml"),
    ),
    (
        "config/network-policy/allow-webhook-traffic.yaml",
        include_str!("../templates/init/config/network-policy/allow-webhook-traffic.yaml"),
    ),
    (
        "config/rbac/metrics_auth_role.yaml",
        include_str!("../templates/init/config/rbac/metrics_auth_role.yaml"),
    ),
    (
        "config/rbac/metrics_auth_role_binding.yaml",
        include_str!("../templates/init/config/rbac/metrics_auth_role_binding.yaml"),
    ),
    (
        "config/rbac/metrics_reader_role.yaml",
        include_str!("../templates/init/config/rbac/metrics_reader_role.yaml"),
    ),
    (
        "config/rbac/role_binding.yaml",
        include_str!("../templates/init/config/rbac/role_binding.yaml"),
    ),
    (
        "config/rbac/service_account.yaml",
        include_str!("../templates/init/config/rbac/service_account.yaml"),
    ),
    (
        "config/samples/kustomization.yaml",
        include_str!("../templates/init/config/samples/kustomization.yaml"),
    ),
];

pub const TYPES: &str = include_str!("../templates/api/types.rs");
pub const GROUP_MOD: &str = include_str!("../templates/api/group_mod.rs");
pub const VERSION_MOD: &str = include_str!("../templates/api/version_mod.rs");
pub const CONTROLLER: &str = include_str!("../templates/api/controller.rs");
pub const CONTROLLER_TEST: &str = include_str!("../templates/api/controller_test.rs");
pub const SAMPLE: &str = include_str!("../templates/api/sample.yaml");
/// `(role, template)`: the admin, editor and viewer ClusterRoles of one kind.
pub const ROLES: &[(&str, &str)] = &[
    ("admin", include_str!("../templates/api/admin_role.yaml")),
    ("editor", include_str!("../templates/api/editor_role.yaml")),
    ("viewer", include_str!("../templates/api/viewer_role.yaml")),
];

/// `create api --external`: the controller of a kind of another project's CRD, and its
/// cluster test.
pub mod external {
    pub const CONTROLLER: &str = include_str!("../templates/external/controller.rs");
    pub const CONTROLLER_TEST: &str = include_str!("../templates/external/controller_test.rs");
}

/// `create webhook`: the handlers' module tree, one file per kind and version with blocks
/// added at its anchors, and the conversion module of a kind.
pub mod webhook {
    pub const MODULE: &str = include_str!("../templates/webhook/webhooks_mod.rs");
    pub const VERSION_MOD: &str = include_str!("../templates/webhook/version_mod.rs");
    pub const KIND: &str = include_str!("../templates/webhook/kind.rs");
    pub const DEFAULTER: &str = include_str!("../templates/webhook/defaulter.rs");
    pub const DEFAULTER_TEST: &str = include_str!("../templates/webhook/defaulter_test.rs");
    pub const VALIDATOR: &str = include_str!("../templates/webhook/validator.rs");
    pub const VALIDATOR_TEST: &str = include_str!("../templates/webhook/validator_test.rs");
    pub const CONVERSION: &str = include_str!("../templates/webhook/conversion.rs");
    pub const CONVERSION_SPOKE: &str = include_str!("../templates/webhook/conversion_spoke.rs");
    pub const CONVERSION_TEST: &str = include_str!("../templates/webhook/conversion_test.rs");
    /// The operator's cluster test of its admission webhooks (with the first one), and the
    /// check of one kind in it.
    pub const CLUSTER_TEST: &str = include_str!("../templates/webhook/cluster_test.rs");
    pub const CLUSTER_CHECK: &str = include_str!("../templates/webhook/cluster_check.rs");
    /// Blocks of the operator's `main.rs`, written with the first webhook.
    pub const MAIN_FLAGS: &str = include_str!("../templates/webhook/main/flags.rs");
    pub const MAIN_SERVER: &str = include_str!("../templates/webhook/main/server.rs");
    /// `(path in the project, template)`: the kustomize trees of the first webhook.
    pub const CONFIG: &[(&str, &str)] = &[
        (
            "config/webhook/kustomization.yaml",
            include_str!("../templates/webhook/config/webhook/kustomization.yaml"),
        ),
        (
            "config/webhook/kustomizeconfig.yaml",
            include_str!("../templates/webhook/config/webhook/kustomizeconfig.yaml"),
        ),
        (
            "config/webhook/service.yaml",
            include_str!("../templates/webhook/config/webhook/service.yaml"),
        ),
        (
            "config/certmanager/kustomization.yaml",
            include_str!("../templates/webhook/config/certmanager/kustomization.yaml"),
        ),
        (
            "config/certmanager/kustomizeconfig.yaml",
            include_str!("../templates/webhook/config/certmanager/kustomizeconfig.yaml"),
        ),
        (
            "config/certmanager/issuer.yaml",
            include_str!("../templates/webhook/config/certmanager/issuer.yaml"),
        ),
        (
            "config/certmanager/certificate-webhook.yaml",
            include_str!("../templates/webhook/config/certmanager/certificate-webhook.yaml"),
        ),
        (
            "config/certmanager/certificate-metrics.yaml",
            include_str!("../templates/webhook/config/certmanager/certificate-metrics.yaml"),
        ),
        (
            "config/default/manager_webhook_patch.yaml",
            include_str!("../templates/webhook/config/default/manager_webhook_patch.yaml"),
        ),
        (
            "config/default/manager_webhook_certmanager_patch.yaml",
            include_str!(
                "../templates/webhook/config/default/manager_webhook_certmanager_patch.yaml"
            ),
        ),
        (
            "config/webhook-certs/kustomization.yaml",
            include_str!("../templates/webhook/config/webhook-certs/kustomization.yaml"),
        ),
        (
            "config/webhook-certs/kustomizeconfig.yaml",
            include_str!("../templates/webhook/config/webhook-certs/kustomizeconfig.yaml"),
        ),
        (
            "config/webhook-certs/role.yaml",
            include_str!("../templates/webhook/config/webhook-certs/role.yaml"),
        ),
        (
            "config/webhook-certs/role_binding.yaml",
            include_str!("../templates/webhook/config/webhook-certs/role_binding.yaml"),
        ),
    ];
    /// The manager's environment for the certificate it keeps: the configuration of each kind
    /// of admission webhook, the CRDs that convert (`config/default/manager_webhook_patch.yaml`,
    /// at `+operator:scaffold:webhook-cert-env`); a converting CRD's rule in
    /// `config/webhook-certs/role.yaml`.
    pub const CERT_ENV_MUTATING: &str =
        "- name: WEBHOOK_MUTATING_CONFIGURATIONS\n  value: mutating-webhook-configuration\n";
    pub const CERT_ENV_VALIDATING: &str =
        "- name: WEBHOOK_VALIDATING_CONFIGURATIONS\n  value: validating-webhook-configuration\n";
    pub const CERT_CRD_RULE: &str =
        include_str!("../templates/webhook/config/webhook-certs/crd_rule.yaml");
    /// Blocks of `config/default/kustomization.yaml`, written with the first webhook.
    pub const DEFAULT_RESOURCES: &str =
        include_str!("../templates/webhook/config/default/resources.yaml");
    pub const DEFAULT_PATCHES: &str =
        include_str!("../templates/webhook/config/default/patches.yaml");
    pub const DEFAULT_REPLACEMENTS: &str =
        include_str!("../templates/webhook/config/default/replacements.yaml");
    /// A CRD as a target of the CA injection (`index` 0: the namespace, 1: the name).
    pub const DEFAULT_CRD_CA_TARGET: &str =
        include_str!("../templates/webhook/config/default/crd_ca_target.yaml");
    /// `config/crd`: a CRD's conversion patch, the list of patches (written with the first),
    /// and where kustomize finds the webhook Service's name in a CRD.
    pub const CRD_PATCH: &str = include_str!("../templates/webhook/config/crd/webhook_in.yaml");
    pub const CRD_PATCHES: &str = include_str!("../templates/webhook/config/crd/patches.yaml");
    pub const CRD_KUSTOMIZECONFIG: &str =
        include_str!("../templates/webhook/config/crd/kustomizeconfig.yaml");
}

/// Fills every `{{name}}` of `template` from `vars`. A hole without a value is a bug in the
/// templates (the tests render them all), so it panics, naming it.
pub fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name_len == 0 || !after[name_len..].starts_with("}}") {
            // Not a hole (`{{` in the file's own syntax): keep it.
            out.push_str(&rest[..start + 2]);
            rest = after;
            continue;
        }
        let name = &after[..name_len];
        let value = vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("template hole {{{{{name}}}}} has no value"));
        out.push_str(&rest[..start]);
        out.push_str(value);
        rest = &after[name_len + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_are_filled_and_other_braces_kept() {
        assert_eq!(
            render("a {{x}} b {{ y }} {{x}}{{z}}", &[("x", "1"), ("z", "2")]),
            "a 1 b {{ y }} 12"
        );
    }

    #[test]
    #[should_panic(expected = "{{missing}} has no value")]
    fn a_hole_without_a_value_is_a_bug() {
        render("{{missing}}", &[]);
    }

    /// A template named `Cargo.toml` would make its directory a package of its own, which
    /// `cargo package` leaves out: the installed scaffolder would not compile.
    #[test]
    fn no_template_is_a_manifest() {
        let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("templates")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                assert_ne!(
                    path.file_name().unwrap(),
                    "Cargo.toml",
                    "{}",
                    path.display()
                );
                if path.is_dir() {
                    dirs.push(path);
                }
            }
        }
    }
}
