//! The unit tests' render, shaped like kubebuilder's config/default, and its chart.

use super::{Chart, ChartMeta, chart_from_render};

/// A render shaped like kubebuilder's config/default, small.
pub(super) const RENDER: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  labels:
    app.kubernetes.io/managed-by: kustomize
    pod-security.kubernetes.io/enforce: restricted
  name: demo-system
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: 'Templates like {{ .Name }} are text here.'
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: demo-controller-manager
  namespace: demo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: demo-manager-rolebinding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: demo-manager-role}
subjects:
- kind: ServiceAccount
  name: demo-controller-manager
  namespace: demo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: demo-metrics-auth-role
rules: []
---
apiVersion: v1
kind: Service
metadata:
  name: demo-controller-manager-metrics-service
  namespace: demo-system
spec:
  ports:
  - {name: https, port: 8443, protocol: TCP, targetPort: 8443}
  selector: {control-plane: controller-manager}
---
apiVersion: v1
kind: Service
metadata:
  name: demo-webhook-service
  namespace: demo-system
spec:
  ports:
  - {port: 443, protocol: TCP, targetPort: 9443}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app.kubernetes.io/managed-by: kustomize, control-plane: controller-manager}
  name: demo-controller-manager
  namespace: demo-system
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      containers:
      - args:
        - --metrics-bind-address=:8443
        - --leader-elect
        - --health-probe-bind-address=:8081
        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs
        command: [/manager]
        image: controller:latest
        name: manager
        ports:
        - {containerPort: 9443, name: webhook-server, protocol: TCP}
        resources:
          limits: {cpu: 500m, memory: 128Mi}
        volumeMounts:
        - {mountPath: /tmp/k8s-webhook-server/serving-certs, name: webhook-certs, readOnly: true}
      serviceAccountName: demo-controller-manager
      volumes:
      - name: webhook-certs
        secret: {secretName: webhook-server-cert}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: demo-serving-cert
  namespace: demo-system
spec:
  dnsNames:
  - demo-webhook-service.demo-system.svc
  issuerRef: {kind: Issuer, name: demo-selfsigned-issuer}
  secretName: webhook-server-cert
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: demo-selfsigned-issuer
  namespace: demo-system
spec:
  selfSigned: {}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  annotations:
    cert-manager.io/inject-ca-from: demo-system/demo-serving-cert
  name: demo-validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: demo-webhook-service, namespace: demo-system, path: /validate}
  name: vwidget.kb.io
  sideEffects: None
";

pub(super) fn meta() -> ChartMeta {
    ChartMeta {
        name: "demo-operator".into(),
        version: "1.2.3".into(),
        source: "config/default".into(),
    }
}

pub(super) fn chart() -> Chart {
    chart_from_render(RENDER, &meta()).unwrap()
}

/// A render whose manager keeps its webhook certificate itself, as config/default does by
/// default: no cert-manager objects, the Secret's and the names' environment, its RBAC.
pub(super) const KEPT_RENDER: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  name: demo-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: demo-controller-manager
  namespace: demo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: demo-webhook-cert-role
  namespace: demo-system
rules:
- apiGroups: ['']
  resources: [secrets]
  resourceNames: [webhook-server-cert]
  verbs: [get, update]
---
apiVersion: v1
kind: Service
metadata:
  name: demo-webhook-service
  namespace: demo-system
spec:
  ports:
  - {port: 443, protocol: TCP, targetPort: 9443}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo-controller-manager
  namespace: demo-system
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      containers:
      - args:
        - --leader-elect
        command: [/manager]
        env:
        - name: WEBHOOK_CERT_SECRET
          value: webhook-server-cert
        - name: WEBHOOK_SERVICE
          value: demo-webhook-service
        - name: WEBHOOK_VALIDATING_CONFIGURATIONS
          value: demo-validating-webhook-configuration
        image: controller:latest
        name: manager
        ports:
        - {containerPort: 9443, name: webhook-server, protocol: TCP}
      serviceAccountName: demo-controller-manager
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: demo-validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: demo-webhook-service, namespace: demo-system, path: /validate}
  name: vwidget.kb.io
  sideEffects: None
";

pub(super) fn kept_chart() -> Chart {
    chart_from_render(KEPT_RENDER, &meta()).unwrap()
}
