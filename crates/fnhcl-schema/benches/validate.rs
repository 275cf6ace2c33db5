//! Validating a realistic S3 Bucket body (about 20 fields) against the
//! upjet provider's CRD, and loading that CRD.
//! Run: `cargo bench -p fnhcl-schema --bench validate`.

use divan::{Bencher, black_box};
use fnhcl_schema::{SchemaSet, parse_documents};
use fnhcl_value::Value;

// As the shipped binary and the other benches: the system allocator,
// which is mimalloc (its `override` feature; see fnhcl-cli's main.rs).
#[global_allocator]
static GLOBAL: std::alloc::System = std::alloc::System;
#[used]
static LINK_MIMALLOC: &(dyn std::alloc::GlobalAlloc + Sync) = &mimalloc::MiMalloc;

const BUCKET_CRD: &str = include_str!("../tests/data/crds/s3.aws.upbound.io_buckets.yaml");

const BUCKET: &str = r#"
apiVersion: s3.aws.upbound.io/v1beta2
kind: Bucket
metadata:
  name: my-bucket
  labels:
    app.kubernetes.io/name: storage
    team: platform
  annotations:
    crossplane.io/external-name: my-bucket-a1b2c3
    crossplane.io/composition-resource-name: bucket
spec:
  deletionPolicy: Delete
  managementPolicies: ["*"]
  forProvider:
    region: eu-central-1
    forceDestroy: true
    objectLockEnabled: false
    bucketNamespace: global
    tags:
      env: prod
      owner: platform
      cost-center: "1234"
      project: demo
  initProvider:
    tags:
      created-by: function-hcl
  providerConfigRef:
    name: default
    policy:
      resolution: Required
      resolve: Always
  writeConnectionSecretToRef:
    name: bucket-conn
    namespace: crossplane-system
"#;

fn main() {
    divan::main();
}

fn schemas() -> SchemaSet {
    let mut set = SchemaSet::default();
    set.load_text("s3.aws.upbound.io_buckets.yaml", BUCKET_CRD)
        .expect("bucket CRD loads");
    set
}

fn body(text: &str) -> Value {
    let docs = parse_documents("bucket.yaml", text).expect("bucket body parses");
    fnhcl_value::from_serde_json(&docs[0])
}

/// A valid body: the success path.
#[divan::bench]
fn validate_valid_bucket(b: Bencher<'_, '_>) {
    let set = schemas();
    let schema = set
        .get("s3.aws.upbound.io/v1beta2", "Bucket")
        .expect("schema");
    let value = body(BUCKET);
    assert!(schema.validate(&value).is_empty());
    b.bench(|| black_box(schema.validate(black_box(&value))));
}

/// The same body with a misspelled field (a did-you-mean is computed).
#[divan::bench]
fn validate_bucket_with_typo(b: Bencher<'_, '_>) {
    let set = schemas();
    let schema = set
        .get("s3.aws.upbound.io/v1beta2", "Bucket")
        .expect("schema");
    let value = body(&BUCKET.replace("region:", "regoin:"));
    assert!(!schema.validate(&value).is_empty());
    b.bench(|| black_box(schema.validate(black_box(&value))));
}

/// Reading and compiling the CRD (two versions, about 90 kB of YAML).
#[divan::bench]
fn load_bucket_crd() -> SchemaSet {
    schemas()
}
