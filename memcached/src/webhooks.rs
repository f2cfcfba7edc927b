//! The Memcached admission webhooks: rules a schema cannot express, because they depend on
//! how this operator runs. Their `#[webhook]` markers are what `cargo xtask manifests` writes
//! to `config/webhook/manifests.yaml`; `main` serves them with `operator_runtime::webhook`.
//!
//! - [`MemcachedDefaulter`] (mutating): a Memcached without `spec.image` gets the image the
//!   operator is configured with (`MEMCACHED_IMAGE`), so each cache keeps the image it was
//!   created with when the operator's default changes later.
//! - [`MemcachedValidator`] (validating): `spec.size` may not exceed the largest size the
//!   operator allows (`--max-memcached-size`), and scaling a running cache to zero is
//!   admitted with a warning (its cached data is lost).

use operator_derive::webhook;
use operator_runtime::webhook::{
    AdmissionContext, Defaulter, Denial, Outcome, Validator, Webhooks,
};

use crate::api::v1alpha1::Memcached;

/// The largest `spec.size` admitted unless `--max-memcached-size` says otherwise.
pub const DEFAULT_MAX_SIZE: i32 = 100;

/// Both webhooks, at the paths their markers name: `image` is the operator's default image,
/// `max_size` the largest size admitted.
pub fn webhooks(image: String, max_size: i32) -> Webhooks {
    Webhooks::new()
        .defaulter::<Memcached, _>(MemcachedDefaulter { image })
        .validator::<Memcached, _>(MemcachedValidator { max_size })
}

/// Fills in `spec.image` from the operator's configuration.
#[webhook(
    mutating = true,
    failure_policy = "fail",
    side_effects = "None",
    groups = "cache.example.com",
    resources = "memcacheds",
    verbs = "create;update",
    versions = "v1alpha1",
    name = "mmemcached-v1alpha1.kb.io",
    path = "/mutate-cache-example-com-v1alpha1-memcached",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone)]
pub struct MemcachedDefaulter {
    /// The image a Memcached without `spec.image` gets.
    pub image: String,
}

impl Defaulter<Memcached> for MemcachedDefaulter {
    async fn set_defaults(&self, _ctx: &AdmissionContext, mc: &mut Memcached) -> Outcome {
        if mc.spec.image.is_none() {
            mc.spec.image = Some(self.image.clone());
        }
        Ok(Vec::new())
    }
}

/// Refuses sizes above the operator's limit; warns when a running cache is scaled to zero.
#[webhook(
    mutating = false,
    failure_policy = "fail",
    side_effects = "None",
    groups = "cache.example.com",
    resources = "memcacheds",
    verbs = "create;update",
    versions = "v1alpha1",
    name = "vmemcached-v1alpha1.kb.io",
    path = "/validate-cache-example-com-v1alpha1-memcached",
    admission_review_versions = "v1"
)]
#[derive(Debug, Clone)]
pub struct MemcachedValidator {
    /// The largest `spec.size` admitted.
    pub max_size: i32,
}

impl MemcachedValidator {
    fn check_size(&self, mc: &Memcached) -> Result<(), Denial> {
        if mc.spec.size > self.max_size {
            return Err(Denial::invalid(format!(
                "spec.size {} is more than this operator allows ({}, its --max-memcached-size)",
                mc.spec.size, self.max_size
            )));
        }
        Ok(())
    }
}

impl Validator<Memcached> for MemcachedValidator {
    async fn validate_create(&self, _ctx: &AdmissionContext, mc: &Memcached) -> Outcome {
        self.check_size(mc)?;
        Ok(Vec::new())
    }

    async fn validate_update(
        &self,
        _ctx: &AdmissionContext,
        old: &Memcached,
        new: &Memcached,
    ) -> Outcome {
        self.check_size(new)?;
        let mut warnings = Vec::new();
        if new.spec.size == 0 && old.spec.size > 0 {
            warnings.push(format!(
                "spec.size 0 stops every memcached pod of {}: the data they cache is lost",
                kube::ResourceExt::name_any(new)
            ));
        }
        Ok(warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::MemcachedSpec;

    fn memcached(size: i32, image: Option<&str>) -> Memcached {
        Memcached::new(
            "cache",
            MemcachedSpec {
                size,
                image: image.map(String::from),
            },
        )
    }

    fn context() -> AdmissionContext {
        AdmissionContext {
            uid: "0".into(),
            operation: kube::core::admission::Operation::Create,
            user_info: Default::default(),
            dry_run: false,
            name: "cache".into(),
            namespace: Some("default".into()),
            kind: kube::core::GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached"),
            resource: kube::core::GroupVersionResource::gvr(
                "cache.example.com",
                "v1alpha1",
                "memcacheds",
            ),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            request_sub_resource: None,
            options: None,
        }
    }

    #[tokio::test]
    async fn the_image_is_filled_in_and_never_replaced() {
        let defaulter = MemcachedDefaulter {
            image: "memcached:1.6".into(),
        };
        let mut mc = memcached(1, None);
        defaulter.set_defaults(&context(), &mut mc).await.unwrap();
        assert_eq!(mc.spec.image.as_deref(), Some("memcached:1.6"));
        let mut mine = memcached(1, Some("mine:1"));
        defaulter.set_defaults(&context(), &mut mine).await.unwrap();
        assert_eq!(mine.spec.image.as_deref(), Some("mine:1"));
    }

    #[tokio::test]
    async fn sizes_above_the_limit_are_refused_and_scaling_to_zero_warns() {
        let validator = MemcachedValidator { max_size: 5 };
        let ctx = context();
        assert!(
            validator
                .validate_create(&ctx, &memcached(5, None))
                .await
                .is_ok()
        );
        let refused = validator
            .validate_create(&ctx, &memcached(6, None))
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("spec.size 6 is more than this operator allows (5")
        );
        let refused = validator
            .validate_update(&ctx, &memcached(1, None), &memcached(9, None))
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("spec.size 9"));
        let warnings = validator
            .validate_update(&ctx, &memcached(3, None), &memcached(0, None))
            .await
            .unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("stops every memcached pod of cache"));
        let warnings = validator
            .validate_update(&ctx, &memcached(0, None), &memcached(0, None))
            .await
            .unwrap();
        assert!(warnings.is_empty());
    }
}
