//! The objects a Memcached owns, as pure functions of the Memcached: what the reconciler
//! server-side applies. No I/O here, so every field is unit-tested.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, ContainerPort, PodSecurityContext, PodSpec, PodTemplateSpec,
    SeccompProfile, SecurityContext, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::{Resource, ResourceExt};

use crate::api::v1alpha1::Memcached;

/// Image used when `MEMCACHED_IMAGE` is not set (the kubebuilder sample's default).
pub const DEFAULT_IMAGE: &str = "memcached:1.6.26-alpine3.19";
/// Environment variable naming the memcached image, as in the kubebuilder sample.
pub const IMAGE_ENV: &str = "MEMCACHED_IMAGE";
pub const PORT: i32 = 11211;
pub const PORT_NAME: &str = "memcached";
/// Label values identifying what this operator manages.
pub const APP_NAME: &str = "memcached";
pub const MANAGED_BY: &str = "memcached-operator";
pub const NAME_LABEL: &str = "app.kubernetes.io/name";
pub const INSTANCE_LABEL: &str = "app.kubernetes.io/instance";
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// The image from `MEMCACHED_IMAGE`, or the default when it is unset or empty.
pub fn image_from_env() -> String {
    std::env::var(IMAGE_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_IMAGE.to_string())
}

/// Labels that select this Memcached's pods and nobody else's: name plus instance, so two
/// Memcacheds in one namespace never share pods.
pub fn selector_labels(mc: &Memcached) -> BTreeMap<String, String> {
    BTreeMap::from([
        (NAME_LABEL.to_string(), APP_NAME.to_string()),
        (INSTANCE_LABEL.to_string(), mc.name_any()),
    ])
}

/// The selector labels plus `managed-by`, put on every object we create.
pub fn labels(mc: &Memcached) -> BTreeMap<String, String> {
    let mut labels = selector_labels(mc);
    labels.insert(MANAGED_BY_LABEL.to_string(), MANAGED_BY.to_string());
    labels
}

/// Label selector (`k=v,...`) for listing or watching all pods this operator manages.
pub fn managed_pods_selector() -> String {
    format!("{NAME_LABEL}={APP_NAME},{MANAGED_BY_LABEL}={MANAGED_BY}")
}

fn owned_meta(mc: &Memcached) -> ObjectMeta {
    ObjectMeta {
        name: Some(mc.name_any()),
        namespace: mc.namespace(),
        labels: Some(labels(mc)),
        owner_references: mc.controller_owner_ref(&()).map(|o| vec![o]),
        ..Default::default()
    }
}

/// The Deployment running `spec.size` memcached pods under the restricted pod security
/// standard, from `spec.image` or else `image` (the operator's default).
pub fn deployment(mc: &Memcached, image: &str) -> Deployment {
    let image = mc.spec.image.as_deref().unwrap_or(image);
    Deployment {
        metadata: owned_meta(mc),
        spec: Some(DeploymentSpec {
            replicas: Some(mc.spec.size),
            selector: LabelSelector {
                match_labels: Some(selector_labels(mc)),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels(mc)),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    security_context: Some(PodSecurityContext {
                        run_as_non_root: Some(true),
                        seccomp_profile: Some(SeccompProfile {
                            type_: "RuntimeDefault".into(),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    containers: vec![Container {
                        name: "memcached".into(),
                        image: Some(image.to_string()),
                        image_pull_policy: Some("IfNotPresent".into()),
                        command: Some(
                            ["memcached", "-m=64", "-o", "modern", "-v"]
                                .map(String::from)
                                .to_vec(),
                        ),
                        ports: Some(vec![ContainerPort {
                            container_port: PORT,
                            name: Some(PORT_NAME.into()),
                            protocol: Some("TCP".into()),
                            ..Default::default()
                        }]),
                        security_context: Some(SecurityContext {
                            run_as_non_root: Some(true),
                            // The memcached image's own non-root user.
                            run_as_user: Some(1001),
                            allow_privilege_escalation: Some(false),
                            capabilities: Some(Capabilities {
                                drop: Some(vec!["ALL".into()]),
                                ..Default::default()
                            }),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The ClusterIP Service in front of the memcached pods (the first seed tutorial's Service).
pub fn service(mc: &Memcached) -> Service {
    Service {
        metadata: owned_meta(mc),
        spec: Some(ServiceSpec {
            selector: Some(selector_labels(mc)),
            ports: Some(vec![ServicePort {
                name: Some(PORT_NAME.into()),
                port: PORT,
                target_port: Some(IntOrString::String(PORT_NAME.into())),
                protocol: Some("TCP".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::MemcachedSpec;

    fn sample(name: &str, size: i32) -> Memcached {
        let mut mc = Memcached::new(
            name,
            MemcachedSpec {
                size,
                ..Default::default()
            },
        );
        mc.metadata.namespace = Some("demo".into());
        mc.metadata.uid = Some(format!("uid-{name}"));
        mc
    }

    #[test]
    fn deployment_is_named_owned_and_sized_after_the_memcached() {
        let d = deployment(&sample("cache", 3), "memcached:test");
        assert_eq!(d.metadata.name.as_deref(), Some("cache"));
        assert_eq!(d.metadata.namespace.as_deref(), Some("demo"));
        let owners = d.metadata.owner_references.unwrap();
        assert_eq!(owners.len(), 1);
        assert_eq!(owners[0].kind, "Memcached");
        assert_eq!(owners[0].api_version, "cache.example.com/v1alpha1");
        assert_eq!(owners[0].name, "cache");
        assert_eq!(owners[0].uid, "uid-cache");
        assert_eq!(owners[0].controller, Some(true));
        let spec = d.spec.unwrap();
        assert_eq!(spec.replicas, Some(3));
        let selector = spec.selector.match_labels.unwrap();
        let template_labels = spec.template.metadata.unwrap().labels.unwrap();
        for (k, v) in &selector {
            assert_eq!(
                template_labels.get(k),
                Some(v),
                "template lacks selector label {k}"
            );
        }
    }

    #[test]
    fn two_memcacheds_select_disjoint_pods() {
        let a = deployment(&sample("a", 1), DEFAULT_IMAGE);
        let b = deployment(&sample("b", 1), DEFAULT_IMAGE);
        let sel_a = a.spec.unwrap().selector.match_labels.unwrap();
        let labels_b = b.spec.unwrap().template.metadata.unwrap().labels.unwrap();
        assert!(
            sel_a.iter().any(|(k, v)| labels_b.get(k) != Some(v)),
            "a's selector {sel_a:?} matches b's pods {labels_b:?}"
        );
    }

    #[test]
    fn the_container_runs_memcached_restricted() {
        let d = deployment(&sample("cache", 1), "example/memcached:1.6");
        let pod = d.spec.unwrap().template.spec.unwrap();
        let psc = pod.security_context.unwrap();
        assert_eq!(psc.run_as_non_root, Some(true));
        assert_eq!(psc.seccomp_profile.unwrap().type_, "RuntimeDefault");
        let [c] = pod.containers.as_slice() else {
            panic!("one container expected")
        };
        assert_eq!(c.image.as_deref(), Some("example/memcached:1.6"));
        // The Memcached's own image wins over the operator's default.
        let mut pinned = sample("cache", 1);
        pinned.spec.image = Some("mine/memcached:1.5".into());
        let d = deployment(&pinned, "example/memcached:1.6");
        let pod = d.spec.unwrap().template.spec.unwrap();
        assert_eq!(
            pod.containers[0].image.as_deref(),
            Some("mine/memcached:1.5")
        );
        assert_eq!(
            c.command.as_deref().unwrap(),
            ["memcached", "-m=64", "-o", "modern", "-v"]
        );
        let port = &c.ports.as_ref().unwrap()[0];
        assert_eq!(
            (port.container_port, port.name.as_deref()),
            (11211, Some("memcached"))
        );
        let sc = c.security_context.as_ref().unwrap();
        assert_eq!(sc.allow_privilege_escalation, Some(false));
        assert_eq!(sc.run_as_non_root, Some(true));
        assert_eq!(
            sc.capabilities.as_ref().unwrap().drop.as_deref().unwrap(),
            ["ALL"]
        );
        assert_eq!(sc.privileged, None);
    }

    #[test]
    fn the_service_targets_the_pods_by_port_name() {
        let mc = sample("cache", 2);
        let s = service(&mc);
        assert_eq!(s.metadata.name.as_deref(), Some("cache"));
        assert!(s.metadata.owner_references.unwrap()[0].controller == Some(true));
        let spec = s.spec.unwrap();
        assert_eq!(spec.selector.unwrap(), selector_labels(&mc));
        let port = &spec.ports.unwrap()[0];
        assert_eq!(port.port, 11211);
        assert_eq!(
            port.target_port,
            Some(IntOrString::String("memcached".into()))
        );
    }

    #[test]
    fn managed_pod_selector_matches_the_pod_labels() {
        let mc = sample("cache", 1);
        let pod_labels = labels(&mc);
        for pair in managed_pods_selector().split(',') {
            let (k, v) = pair.split_once('=').unwrap();
            assert_eq!(pod_labels.get(k).map(String::as_str), Some(v));
        }
    }
}
