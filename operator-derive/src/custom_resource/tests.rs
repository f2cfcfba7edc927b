//! The expansion's tests: the impls and the paths they use.

use super::*;

/// The impls for `input`, with an empty CRD (no sources are read).
fn expanded(input: syn::DeriveInput) -> String {
    let mut diags = Diagnostics::new();
    let resource = operator_gen::internals::markers::crd_markers(&input.attrs, &mut diags).resource;
    assert!(diags.is_empty(), "{:?}", diags.into_vec());
    let syn::Data::Struct(syn::DataStruct {
        fields: syn::Fields::Named(named),
        ..
    }) = &input.data
    else {
        unreachable!("a struct with named fields")
    };
    let crd = crate_crd::CompiledCrd {
        json: String::new(),
        plural: "things".into(),
        files: Vec::new(),
    };
    generate(&input, &named.named, &resource.unwrap(), "Thing", &crd).to_string()
}

#[test]
fn crates_relocate_every_path_the_impls_use() {
    let plain = expanded(syn::parse_quote! {
        #[resource(group = "x.example.com", version = "v1", shortnames = "th;t")]
        pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec, pub status: Option<ThingStatus> }
    });
    for path in [":: kube :: core ::", ":: k8s_openapi ::", ":: serde ::"] {
        assert!(plain.contains(path), "{path} in {plain}");
    }
    assert!(plain.contains("CustomResourceExt for Thing"), "{plain}");
    assert!(plain.contains("\"things.x.example.com\""), "{plain}");
    assert!(plain.contains("& [\"th\" , \"t\"]"), "{plain}");
    assert!(!plain.contains("serde (crate"), "{plain}");

    let moved = expanded(syn::parse_quote! {
        #[resource(group = "x.example.com", version = "v1",
                   crates(kube = my::kube, k8s_openapi = my::k8s, serde = my::serde, serde_json = my::json))]
        pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec, pub status: Option<ThingStatus> }
    });
    // Every path to a crate starts at `my`: none is left at the root.
    for (root, moved_to) in [
        (":: kube ::", "my :: kube ::"),
        (":: serde ::", "my :: serde ::"),
        (":: k8s_openapi ::", "my :: k8s_openapi ::"),
        (":: serde_json ::", "my :: serde_json ::"),
    ] {
        assert_eq!(
            moved.matches(root).count(),
            moved.matches(moved_to).count(),
            "{root} in {moved}"
        );
    }
    for path in [
        "my :: kube :: core :: Resource",
        "my :: k8s :: NamespaceResourceScope",
        "my :: serde :: Serialize",
    ] {
        assert!(moved.contains(path), "{path} missing in {moved}");
    }
    assert!(moved.contains("serde (crate = \"my::serde\")"), "{moved}");
}

#[test]
fn crates_takes_only_the_crates_it_knows() {
    let input: syn::DeriveInput = syn::parse_quote! {
        #[resource(group = "x.example.com", version = "v1", crates(kube_core = my::kube))]
        pub struct Thing { pub metadata: ObjectMeta }
    };
    let mut diags = Diagnostics::new();
    let _ = operator_gen::internals::markers::crd_markers(&input.attrs, &mut diags);
    let messages: Vec<String> = diags.into_vec().into_iter().map(|d| d.message).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("unknown argument `kube_core` in #[resource(crates(...))]"),
        "{messages:?}"
    );
}
