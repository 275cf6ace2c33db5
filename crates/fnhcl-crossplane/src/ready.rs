//! D34: whether an observed composed resource is ready, for resources
//! without a `ready` block when the input says `autoReady: true`.
//!
//! A `Ready` condition with status `"True"` makes any resource ready.
//! Otherwise the Kubernetes kinds below have their own rule (matched by
//! group and kind, so a provider's `Role` or `Deployment` is not taken for
//! Kubernetes'); anything else is not ready.

use serde_json::Value;

/// Whether the observed object `o` is ready.
pub fn is_ready(o: &Value) -> bool {
    if condition_is_true(o, "Ready") {
        return true;
    }
    let api_version = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let kind = o.get("kind").and_then(Value::as_str).unwrap_or("");
    let status = |p: &str| o.pointer(&format!("/status/{p}"));
    let int = |v: Option<&Value>| v.and_then(Value::as_f64);
    match (group, kind) {
        ("", "ConfigMap" | "Secret" | "ServiceAccount") => true,
        (
            "rbac.authorization.k8s.io",
            "Role" | "RoleBinding" | "ClusterRole" | "ClusterRoleBinding",
        ) => true,
        ("apps", "Deployment") => {
            let want = int(o.pointer("/spec/replicas")).unwrap_or(1.0);
            let available = int(status("availableReplicas")).unwrap_or(0.0);
            let generation = int(o.pointer("/metadata/generation")).unwrap_or(0.0);
            let observed = int(status("observedGeneration")).unwrap_or(0.0);
            available >= want && observed >= generation
        }
        ("apps", "StatefulSet") => {
            let want = int(o.pointer("/spec/replicas")).unwrap_or(1.0);
            int(status("readyReplicas")).unwrap_or(0.0) >= want
        }
        ("apps", "DaemonSet") => match int(status("desiredNumberScheduled")) {
            Some(want) => int(status("numberReady")) == Some(want),
            None => false,
        },
        ("batch", "Job") => condition_is_true(o, "Complete"),
        ("", "PersistentVolumeClaim") => status("phase").and_then(Value::as_str) == Some("Bound"),
        ("", "Service") => {
            let kind = o.pointer("/spec/type").and_then(Value::as_str);
            kind != Some("LoadBalancer") || has_ingress(o)
        }
        ("networking.k8s.io", "Ingress") => has_ingress(o),
        _ => false,
    }
}

pub(crate) fn condition_is_true(o: &Value, type_: &str) -> bool {
    o.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some(type_)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

fn has_ingress(o: &Value) -> bool {
    o.pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

#[cfg(test)]
mod tests {
    use super::is_ready;
    use serde_json::json;

    #[test]
    fn the_rules_of_d34() {
        let cases = [
            // Any kind with Ready=True.
            (
                json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
                    "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
                true,
            ),
            (
                json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
                    "status": {"conditions": [{"type": "Ready", "status": "False"}]}}),
                false,
            ),
            (
                json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket"}),
                false,
            ),
            // Observed is enough.
            (json!({"apiVersion": "v1", "kind": "ConfigMap"}), true),
            (json!({"apiVersion": "v1", "kind": "Secret"}), true),
            (json!({"apiVersion": "v1", "kind": "ServiceAccount"}), true),
            (
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding"}),
                true,
            ),
            // A provider's Role is not Kubernetes'.
            (
                json!({"apiVersion": "iam.aws.upbound.io/v1beta1", "kind": "Role"}),
                false,
            ),
            // Deployments: available replicas and the observed generation.
            (
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"generation": 2},
                    "spec": {"replicas": 3},
                    "status": {"availableReplicas": 3, "observedGeneration": 2}}),
                true,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"generation": 3},
                    "spec": {"replicas": 3},
                    "status": {"availableReplicas": 3, "observedGeneration": 2}}),
                false,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "Deployment",
                    "status": {"availableReplicas": 1}}),
                true,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "status": {}}),
                false,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"replicas": 2},
                    "status": {"readyReplicas": 2}}),
                true,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"replicas": 2},
                    "status": {"readyReplicas": 1}}),
                false,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "status": {"desiredNumberScheduled": 2, "numberReady": 2}}),
                true,
            ),
            (
                json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "status": {}}),
                false,
            ),
            (
                json!({"apiVersion": "batch/v1", "kind": "Job",
                    "status": {"conditions": [{"type": "Complete", "status": "True"}]}}),
                true,
            ),
            (
                json!({"apiVersion": "batch/v1", "kind": "Job", "status": {}}),
                false,
            ),
            (
                json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "status": {"phase": "Bound"}}),
                true,
            ),
            (
                json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "status": {"phase": "Pending"}}),
                false,
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "spec": {"type": "ClusterIP"}}),
                true,
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "spec": {"type": "LoadBalancer"}}),
                false,
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "spec": {"type": "LoadBalancer"},
                    "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}}}),
                true,
            ),
            (
                json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "status": {"loadBalancer": {}}}),
                false,
            ),
            (
                json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "status": {"loadBalancer": {"ingress": [{"hostname": "a"}]}}}),
                true,
            ),
        ];
        for (o, want) in cases {
            assert_eq!(is_ready(&o), want, "{o}");
        }
    }
}
