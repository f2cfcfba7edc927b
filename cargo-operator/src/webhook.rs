//! `cargo operator create webhook`: the webhooks of one kind (kubebuilder's `create webhook`).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use operator_xtask::project::{self, Webhooks, is_version};

use crate::names::Gvk;
use crate::plan::{Plan, insert_before_anchor, insert_block_before_anchor};
use crate::{finish, template, toml_string};

/// What `create webhook` is asked for.
#[derive(Debug, Clone)]
pub struct WebhookOptions {
    /// Where to look for `PROJECT.toml` (it and the directories above it).
    pub cwd: PathBuf,
    pub group: String,
    /// The version whose objects the admission webhooks see; with `conversion`, the hub.
    pub version: String,
    pub kind: String,
    /// A defaulting (mutating) admission webhook.
    pub defaulting: bool,
    /// A validating admission webhook.
    pub validation: bool,
    /// The conversion of the kind between `version` (the hub) and `spokes`.
    pub conversion: bool,
    pub spokes: Vec<String>,
}

/// `cargo operator create webhook`: the webhooks of one kind and version in the project
/// around `options.cwd`.
pub fn create_webhook(options: &WebhookOptions) -> Result<()> {
    if !(options.defaulting || options.validation || options.conversion) {
        bail!("say which webhooks: --defaulting, --validation, --conversion --spoke <version>");
    }
    if options.conversion && options.spokes.is_empty() {
        bail!("--conversion needs --spoke: the versions converted to and from --version (the hub)");
    }
    if !options.conversion && !options.spokes.is_empty() {
        bail!("--spoke goes with --conversion");
    }
    let (root, project) = crate::load_project(&options.cwd, "create webhook")?;
    let gvk = Gvk::new(
        &options.group,
        &options.version,
        &options.kind,
        &project.domain,
    )?;
    let find = |version: &str| {
        project
            .resources
            .iter()
            .position(|r| r.group == gvk.group && r.version == version && r.kind == gvk.kind)
    };
    let create_api_first = |version: &str| {
        format!(
            "run `cargo operator create api --group {} --version {version} --kind {}` first",
            gvk.group, gvk.kind
        )
    };
    let Some(index) = find(&gvk.version) else {
        let known = if project.resources.is_empty() {
            "it has no kinds yet".to_string()
        } else {
            let all: Vec<String> = project
                .resources
                .iter()
                .map(|r| format!("{}/{} {}", r.group, r.version, r.kind))
                .collect();
            format!("it has {}", all.join(", "))
        };
        bail!(
            "{} has no {}/{} {} ({known}); a webhook is for a kind of the project: {}",
            project::FILE,
            gvk.group,
            gvk.version,
            gvk.kind,
            create_api_first(&gvk.version)
        );
    };
    let resource = &project.resources[index];
    if resource.path != project.operator.path {
        bail!(
            "{}/{} {} is declared in {}, not in the operator crate {}; the scaffold writes \
             webhooks for the operator's own kinds",
            gvk.group,
            gvk.version,
            gvk.kind,
            resource.path.display(),
            project.operator.path.display()
        );
    }
    let had = resource.webhooks.clone().unwrap_or_default();

    let crate_dir = project.operator.path.clone();
    let crate_ident = project.operator.package.replace('-', "_");
    let src = crate_dir.join("src");
    let webhooks_mod = src.join("webhooks/mod.rs");
    let version_dir = src.join("webhooks").join(&gvk.version);
    let version_mod = version_dir.join("mod.rs");
    let kind_file = version_dir.join(format!("{}.rs", gvk.kind_snake));
    let conversion_file = version_dir.join(format!("{}_conversion.rs", gvk.kind_snake));
    let cluster_test = crate_dir.join("tests/webhooks.rs");
    let at = format!("{}/{} {}", gvk.group, gvk.version, gvk.kind);
    for (asked, exists, what, handler) in [
        (
            options.defaulting,
            had.defaulting,
            "defaulting",
            "Defaulter",
        ),
        (
            options.validation,
            had.validation,
            "validating",
            "Validator",
        ),
    ] {
        if asked && exists {
            bail!(
                "{at} has a {what} webhook already ({}{handler} in {})",
                gvk.kind,
                kind_file.display()
            );
        }
    }

    // The conversion: the hub is --version, every other version of the kind a spoke.
    if options.conversion {
        if let Some(hub) = project.resources.iter().find(|r| {
            r.group == gvk.group
                && r.kind == gvk.kind
                && r.webhooks.as_ref().is_some_and(|w| w.conversion)
        }) {
            let spokes = hub
                .webhooks
                .as_ref()
                .map(|w| w.spokes.join(", "))
                .unwrap_or_default();
            bail!(
                "{} has a conversion webhook already (hub {}, spokes {spokes}, in {}); to \
                 convert another version, add its From impls and `.spoke::<..>()` there by hand",
                gvk.kind,
                hub.version,
                hub.path
                    .join("src/webhooks")
                    .join(&hub.version)
                    .join(format!("{}_conversion.rs", gvk.kind_snake))
                    .display()
            );
        }
        let mut seen = Vec::new();
        for spoke in &options.spokes {
            if !is_version(spoke) {
                bail!(
                    "--spoke {spoke:?} is not a Kubernetes API version (v1, v1alpha1, v2beta3, \
                     ...)"
                );
            }
            if *spoke == gvk.version {
                bail!("--spoke {spoke} is the hub (--version) itself");
            }
            if seen.contains(&spoke) {
                bail!("--spoke {spoke} is given twice");
            }
            seen.push(spoke);
            if find(spoke).is_none() {
                bail!(
                    "--spoke {spoke}: {} has no {}/{spoke} {}; every version converted must \
                     exist: {}",
                    project::FILE,
                    gvk.group,
                    gvk.kind,
                    create_api_first(spoke)
                );
            }
        }
        let left_out: Vec<&str> = project
            .resources
            .iter()
            .filter(|r| r.group == gvk.group && r.kind == gvk.kind)
            .map(|r| r.version.as_str())
            .filter(|v| *v != gvk.version && !options.spokes.iter().any(|s| s == v))
            .collect();
        if !left_out.is_empty() {
            bail!(
                "{} also has version {}: once the CRD converts through the webhook, the API \
                 server sends it every version, so --spoke must list each version but the hub \
                 (add {})",
                gvk.kind,
                left_out.join(", "),
                left_out.join(",")
            );
        }
    }

    let test_namespace = if resource.namespaced {
        "Some(\"default\".into())"
    } else {
        "None"
    };
    let group_path = gvk.api_group.replace('.', "-");
    let base: Vec<(&str, &str)> = vec![
        ("project_name", &project.project_name),
        ("crate_ident", &crate_ident),
        ("api_group", &gvk.api_group),
        ("group_mod", &gvk.group_mod),
        ("group_path", &group_path),
        ("version", &gvk.version),
        ("kind", &gvk.kind),
        ("kind_lower", &gvk.kind_lower),
        ("kind_snake", &gvk.kind_snake),
        ("plural", &gvk.plural),
        ("test_namespace", test_namespace),
    ];
    let render = |template: &str| template::render(template, &base);

    // The first webhook of the project: the module tree, the server in main, config/.
    let first = project.resources.iter().all(|r| r.webhooks.is_none());
    let mut plan = Plan::new(&root);
    if first {
        plan.create(&webhooks_mod, render(template::webhook::MODULE));
        plan.edit(src.join("lib.rs"), |t| {
            insert_before_anchor(t, "// +operator:scaffold:modules", "pub mod webhooks;")
        })?;
        plan.edit(src.join("main.rs"), |t| {
            let t = insert_block_before_anchor(
                t,
                "// +operator:scaffold:flags",
                template::webhook::MAIN_FLAGS,
            )?;
            if t.contains("// +operator:scaffold:stop-servers") {
                bail!(
                    "it starts the webhook server's way of before operator_runtime::Manager (it \
                     has a `+operator:scaffold:stop-servers` anchor); build the manager with \
                     `Manager::from_flags(..)` as `cargo operator init` writes it now, keeping the \
                     `// +operator:scaffold:servers` anchor between the builder and `run`"
                );
            }
            insert_block_before_anchor(
                &t,
                "// +operator:scaffold:servers",
                &render(template::webhook::MAIN_SERVER),
            )
        })?;
        for (path, config) in template::webhook::CONFIG {
            plan.create(path, render(config));
        }
        plan.edit("config/default/kustomization.yaml", |t| {
            if t.lines().any(|l| l.starts_with("replacements:")) {
                bail!(
                    "it has replacements already; the webhooks' are added at its end. Move \
                     yours to a component, or add the webhook wiring by hand (kubebuilder's \
                     config/default with webhooks enabled)"
                );
            }
            let t = insert_block_before_anchor(
                t,
                "# +operator:scaffold:default-resources",
                template::webhook::DEFAULT_RESOURCES,
            )?;
            let t = insert_block_before_anchor(
                &t,
                "# +operator:scaffold:default-patches",
                template::webhook::DEFAULT_PATCHES,
            )?;
            Ok(format!(
                "{}\n\n{}",
                t.trim_end_matches('\n'),
                template::webhook::DEFAULT_REPLACEMENTS
            ))
        })?;
    }
    // The certificate the manager keeps is trusted where the webhooks are: its environment
    // names this kind's configuration or CRD, its RBAC the CRD. A project whose
    // config/default takes cert-manager's certificate instead (made before, or switched)
    // has no anchor there and needs none of it.
    let env_patch = Path::new("config/default/manager_webhook_patch.yaml");
    let kept = plan.exists(env_patch)
        && plan
            .read(env_patch)?
            .lines()
            .any(|l| l.trim() == CERT_ENV_ANCHOR);
    if kept {
        let crd = format!("{}.{}", gvk.plural, gvk.api_group);
        plan.edit(env_patch, |t| {
            let mut t = t.to_string();
            for (wanted, entry) in [
                (options.defaulting, template::webhook::CERT_ENV_MUTATING),
                (options.validation, template::webhook::CERT_ENV_VALIDATING),
            ] {
                let name = entry.lines().next().unwrap_or_default().trim();
                if wanted && !t.lines().any(|l| l.trim() == name) {
                    t = insert_block_before_anchor(&t, CERT_ENV_ANCHOR, entry)?;
                }
            }
            if options.conversion {
                t = with_conversion_crd(&t, &crd)?;
            }
            Ok(t)
        })?;
        if options.conversion {
            plan.edit("config/webhook-certs/role.yaml", |t| {
                if t.lines().any(|l| l.trim() == format!("- {crd}")) {
                    return Ok(t.to_string());
                }
                insert_block_before_anchor(
                    t,
                    "# +operator:scaffold:webhook-cert-crds",
                    &render(template::webhook::CERT_CRD_RULE),
                )
            })?;
        }
    }
    if !plan.exists(&version_mod) {
        plan.create(&version_mod, render(template::webhook::VERSION_MOD));
    }
    plan.edit(&webhooks_mod, |t| {
        insert_before_anchor(
            t,
            "// +operator:scaffold:webhook-versions",
            &format!("pub mod {};", gvk.version),
        )
    })?;
    let register = |plan: &mut Plan, line: String| {
        plan.edit(&webhooks_mod, |t| {
            insert_before_anchor(t, "// +operator:scaffold:webhooks", &line)
        })
    };
    let add_module = |plan: &mut Plan, module: &str| {
        plan.edit(&version_mod, |t| {
            let t = insert_before_anchor(
                t,
                "// +operator:scaffold:webhook-kinds",
                &format!("mod {module};"),
            )?;
            insert_before_anchor(
                &t,
                "// +operator:scaffold:webhook-kinds",
                &format!("pub use {module}::*;"),
            )
        })
    };

    // Defaulting and validation: one file per kind and version, each handler added at its
    // anchors, registered in webhooks::all(), its configuration listed for kustomize.
    for (asked, handler, code, test) in [
        (
            options.defaulting,
            "Defaulter",
            template::webhook::DEFAULTER,
            template::webhook::DEFAULTER_TEST,
        ),
        (
            options.validation,
            "Validator",
            template::webhook::VALIDATOR,
            template::webhook::VALIDATOR_TEST,
        ),
    ] {
        if !asked {
            continue;
        }
        if !plan.exists(&kind_file) {
            plan.create(&kind_file, render(template::webhook::KIND));
            add_module(&mut plan, &gvk.kind_snake)?;
        }
        plan.edit(&kind_file, |t| {
            let t = insert_before_anchor(
                t,
                "// +operator:scaffold:webhook-imports",
                &format!("use operator_runtime::webhook::{handler};"),
            )?;
            let t = insert_block_before_anchor(
                &t,
                "// +operator:scaffold:webhook-handlers",
                &format!("{}\n", render(code)),
            )?;
            insert_block_before_anchor(
                &t,
                "// +operator:scaffold:webhook-tests",
                &format!("{}\n", render(test)),
            )
        })?;
        let method = handler.to_ascii_lowercase();
        register(
            &mut plan,
            format!(".{method}({}::{}{handler})", gvk.version, gvk.kind),
        )?;
        plan.edit("config/webhook/kustomization.yaml", |t| {
            insert_before_anchor(
                t,
                "# +operator:scaffold:webhook-manifests",
                "- manifests.yaml",
            )
        })?;
    }

    // The cluster test of the admission webhooks: created with the first, a check per kind
    // and version (one for its defaulting and validating webhooks together).
    if options.defaulting || options.validation {
        if !plan.exists(&cluster_test) {
            plan.create(&cluster_test, render(template::webhook::CLUSTER_TEST));
        }
        let check = render(template::webhook::CLUSTER_CHECK);
        let heading = check.lines().next().unwrap_or_default().trim().to_string();
        plan.edit(&cluster_test, |t| {
            if t.contains(&heading) {
                return Ok(t.to_string());
            }
            insert_block_before_anchor(t, "// +operator:scaffold:webhook-checks", &check)
        })?;
    }

    // Conversion: From impls through the hub, served at /convert; the CRD patched to call it
    // and cert-manager's CA injected into it.
    if options.conversion {
        let mut impls = String::new();
        let mut tests = String::new();
        let mut calls = String::new();
        for spoke in &options.spokes {
            let mut vars = base.clone();
            vars.push(("spoke", spoke));
            impls += &template::render(template::webhook::CONVERSION_SPOKE, &vars);
            tests += &template::render(template::webhook::CONVERSION_TEST, &vars);
            calls += &format!("\n        .spoke::<{spoke}::{}>()", gvk.kind);
        }
        let versions = format!(
            "{{{}}}",
            std::iter::once(&gvk.version)
                .chain(&options.spokes)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut vars = base.clone();
        vars.extend([
            ("versions", versions.as_str()),
            ("spoke_calls", calls.as_str()),
            ("spoke_impls", impls.as_str()),
            ("spoke_tests", tests.as_str()),
        ]);
        plan.create(
            &conversion_file,
            template::render(template::webhook::CONVERSION, &vars),
        );
        add_module(&mut plan, &format!("{}_conversion", gvk.kind_snake))?;
        register(
            &mut plan,
            format!(
                ".conversion({}::{}_conversion())",
                gvk.version, gvk.kind_snake
            ),
        )?;

        let patch = format!("patches/webhook_in_{}.yaml", gvk.plural);
        plan.create(
            Path::new("config/crd").join(&patch),
            render(template::webhook::CRD_PATCH),
        );
        plan.edit("config/crd/kustomization.yaml", |t| {
            let t = if t
                .lines()
                .any(|l| l.trim() == "# +operator:scaffold:crd-patches")
            {
                t.to_string()
            } else {
                format!(
                    "{}\n{}",
                    t.trim_end_matches('\n'),
                    template::webhook::CRD_PATCHES
                )
            };
            insert_before_anchor(
                &t,
                "# +operator:scaffold:crd-patches",
                &format!("- path: {patch}"),
            )
        })?;
        if !plan.exists(Path::new("config/crd/kustomizeconfig.yaml")) {
            plan.create(
                "config/crd/kustomizeconfig.yaml",
                template::webhook::CRD_KUSTOMIZECONFIG.to_string(),
            );
        }
        plan.edit("config/default/kustomization.yaml", |t| {
            let mut t = t.to_string();
            for (anchor, index) in [
                ("# +operator:scaffold:ca-injection-namespace", "0"),
                ("# +operator:scaffold:ca-injection-name", "1"),
            ] {
                let mut vars = base.clone();
                vars.push(("index", index));
                let target = template::render(template::webhook::DEFAULT_CRD_CA_TARGET, &vars);
                t = insert_block_before_anchor(&t, anchor, &target)?;
            }
            Ok(t)
        })?;
    }

    // The project file: the webhooks on the resource's entry.
    let now = Webhooks {
        defaulting: had.defaulting || options.defaulting,
        validation: had.validation || options.validation,
        conversion: had.conversion || options.conversion,
        spokes: if options.conversion {
            options.spokes.clone()
        } else {
            had.spokes.clone()
        },
    };
    plan.edit(project::FILE, |t| set_webhooks(t, index, &now))?;

    finish(plan, &root)?;

    let handlers = match (options.defaulting, options.validation) {
        (true, true) => "defaulting and validating webhooks",
        (true, false) => "defaulting webhook",
        (false, true) => "validating webhook",
        (false, false) => "",
    };
    if !handlers.is_empty() {
        eprintln!(
            "created the {handlers} of {}/{} {} ({})",
            gvk.api_group,
            gvk.version,
            gvk.kind,
            kind_file.display()
        );
    }
    if options.conversion {
        eprintln!(
            "created the conversion of {} {} between {} (the hub) and {} ({}, \
             config/crd/patches/webhook_in_{}.yaml)",
            gvk.api_group,
            gvk.kind,
            gvk.version,
            options.spokes.join(", "),
            conversion_file.display(),
            gvk.plural
        );
    }
    if first {
        eprintln!(
            "created {} (webhooks::all(), served by main.rs beside the manager; \
             --enable-webhooks=false runs without them), config/webhook, config/webhook-certs \
             (the manager keeps its webhook certificate itself; no cert-manager needed), \
             config/certmanager (the switch to cert-manager, off) and the webhook wiring of \
             config/default",
            webhooks_mod.display()
        );
    }
    let mut next = Vec::new();
    if !handlers.is_empty() {
        next.push("write their rules where the comments say");
    }
    if options.conversion {
        next.push("change the From impls with the versions' types");
    }
    eprintln!(
        "next: {}; `cargo xtask test` runs their tests",
        next.join(", and ")
    );
    Ok(())
}

/// `PROJECT.toml` with the `webhooks = { .. }` line of its `index`th `[[resource]]` set to
/// `webhooks` (replaced, or added at the end of the entry).
fn set_webhooks(text: &str, index: usize, webhooks: &Webhooks) -> Result<String> {
    let mut fields = Vec::new();
    for (name, on) in [
        ("defaulting", webhooks.defaulting),
        ("validation", webhooks.validation),
        ("conversion", webhooks.conversion),
    ] {
        if on {
            fields.push(format!("{name} = true"));
        }
    }
    if !webhooks.spokes.is_empty() {
        let spokes: Vec<String> = webhooks.spokes.iter().map(|s| toml_string(s)).collect();
        fields.push(format!("spokes = [{}]", spokes.join(", ")));
    }
    let line = format!("webhooks = {{ {} }}", fields.join(", "));

    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[resource]]")
        .map(|(i, _)| i)
        .nth(index);
    let edited = header.map(|start| {
        let end = lines[start + 1..]
            .iter()
            .position(|l| l.trim_start().starts_with('['))
            .map_or(lines.len(), |p| start + 1 + p);
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let existing = (start + 1..end).find(|&i| {
            lines[i]
                .strip_prefix("webhooks")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        });
        match existing {
            Some(i) => out[i] = line.clone(),
            None => {
                let last = (start..end)
                    .rev()
                    .find(|&i| !lines[i].trim().is_empty())
                    .unwrap_or(start);
                out.insert(last + 1, line.clone());
            }
        }
        out.join("\n") + "\n"
    });
    // What a TOML reader makes of the edit must be exactly the webhooks asked for.
    let recorded = edited.as_deref().and_then(|t| {
        let table: toml::Table = toml::from_str(t).ok()?;
        let entry = table.get("resource")?.as_array()?.get(index)?;
        Some(entry.get("webhooks")?.to_string())
    });
    let wanted = toml::from_str::<toml::Table>(&line)
        .ok()
        .and_then(|t| Some(t.get("webhooks")?.to_string()));
    match (edited, recorded) {
        (Some(edited), Some(recorded)) if Some(&recorded) == wanted.as_ref() => Ok(edited),
        _ => bail!(
            "its [[resource]] entries are not as `create api` writes them; add `{line}` to the \
             entry of this kind and version by hand"
        ),
    }
}

/// Where `create webhook` adds to the environment of the manager that keeps its certificate.
const CERT_ENV_ANCHOR: &str = "# +operator:scaffold:webhook-cert-env";

/// The patch's environment with `crd` in `WEBHOOK_CONVERSION_CRDS` (a comma-separated list),
/// made before the anchor if it is not there yet.
fn with_conversion_crd(text: &str, crd: &str) -> Result<String> {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(at) = lines
        .iter()
        .position(|l| l.trim() == "- name: WEBHOOK_CONVERSION_CRDS")
    {
        let Some(value) = lines.get(at + 1).filter(|l| l.trim().starts_with("value:")) else {
            bail!(
                "config/default/manager_webhook_patch.yaml: WEBHOOK_CONVERSION_CRDS has no \
                 `value:` on the next line; add {crd} to its comma-separated list by hand"
            );
        };
        let list = value.trim().trim_start_matches("value:").trim();
        if list.split(',').any(|c| c.trim() == crd) {
            return Ok(text.to_string());
        }
        let indent = &value[..value.len() - value.trim_start().len()];
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[at + 1] = if list.is_empty() {
            format!("{indent}value: {crd}")
        } else {
            format!("{indent}value: {list},{crd}")
        };
        return Ok(out.join("\n") + "\n");
    }
    insert_block_before_anchor(
        text,
        CERT_ENV_ANCHOR,
        &format!("- name: WEBHOOK_CONVERSION_CRDS\n  value: {crd}\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = "version = 1\n\n[operator]\npath = \"op\"\n\n[[resource]]\n\
                           kind = \"A\"\n\n[[resource]]\nkind = \"B\"\nnamespaced = true\n";

    #[test]
    fn the_webhooks_line_is_added_to_its_entry_then_replaced() {
        let one = Webhooks {
            defaulting: true,
            ..Webhooks::default()
        };
        let text = set_webhooks(PROJECT, 0, &one).unwrap();
        assert!(
            text.contains("kind = \"A\"\nwebhooks = { defaulting = true }\n\n[[resource]]"),
            "{text}"
        );
        let both = Webhooks {
            defaulting: true,
            validation: true,
            conversion: true,
            spokes: vec!["v2".into(), "v3".into()],
        };
        let text = set_webhooks(&text, 0, &both).unwrap();
        assert!(text.contains(
            "kind = \"A\"\nwebhooks = { defaulting = true, validation = true, conversion = true, \
             spokes = [\"v2\", \"v3\"] }\n\n"
        ));
        assert_eq!(text.matches("webhooks").count(), 1);
        let last = set_webhooks(PROJECT, 1, &one).unwrap();
        assert!(last.ends_with("namespaced = true\nwebhooks = { defaulting = true }\n"));
        let err = set_webhooks(PROJECT, 2, &one).unwrap_err().to_string();
        assert!(err.contains("by hand"), "{err}");
    }
}
