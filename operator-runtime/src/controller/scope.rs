//! An `Api` for a kind of either scope, from a namespace that is there or not.

use kube::core::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};

/// The scope of a kind, as code that does not know it statically builds its `Api` with:
/// [`api`].
pub trait ScopeApi: Sized {
    /// Whether objects of the scope live in a namespace.
    const NAMESPACED: bool;

    /// `Api::namespaced` in `namespace` (`Api::all` without one) for namespaced kinds,
    /// `Api::all` for cluster-scoped ones.
    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: Client,
        namespace: Option<&str>,
    ) -> Api<K>;
}

impl ScopeApi for NamespaceResourceScope {
    const NAMESPACED: bool = true;

    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: Client,
        namespace: Option<&str>,
    ) -> Api<K> {
        match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        }
    }
}

impl ScopeApi for ClusterResourceScope {
    const NAMESPACED: bool = false;

    fn api<K: Resource<Scope = Self, DynamicType = ()>>(
        client: Client,
        _namespace: Option<&str>,
    ) -> Api<K> {
        Api::all(client)
    }
}

/// The `Api` of `K` for objects in `namespace` (ignored for cluster-scoped kinds): what a
/// reconciler that is generic over the scope, or one scaffolded for either, calls.
pub fn api<K>(client: &Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<DynamicType = ()>,
    K::Scope: ScopeApi,
{
    K::Scope::api(client.clone(), namespace)
}
