"""fn-hcl serve, called by a client nobody on this project wrote.

The generated gRPC stubs and helpers of the PyPI package
`crossplane-function-sdk-python` build requests and read responses, the way
a Python-based tool (or Crossplane's own protocol, which they mirror) does.

Run by tests/python/run.sh, which starts the server and sets FNHCL_ADDRESS.
"""

import os
import unittest

import grpc
from crossplane.function import resource
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

BUCKET = """-- main.hcl --
resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = "${req.composite.metadata.name}-bucket" }
    spec       = { forProvider = { region = req.composite.spec.parameters.region } }
  }
}
"""

XR = {
    "apiVersion": "example.com/v1",
    "kind": "XS3Bucket",
    "metadata": {"name": "bucket-36f7e"},
    "spec": {"parameters": {"region": "eu-west-1"}},
}


def request(hcl, **input_extra):
    hcl_input = {"apiVersion": "function-hcl/v1", "kind": "HclInput", "source": "Inline", "hcl": hcl}
    hcl_input.update(input_extra)
    return fnv1.RunFunctionRequest(
        meta=fnv1.RequestMeta(tag="python"),
        observed=fnv1.State(composite=fnv1.Resource(resource=resource.dict_to_struct(XR))),
        input=resource.dict_to_struct(hcl_input),
    )


class FunctionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.channel = grpc.insecure_channel(os.environ["FNHCL_ADDRESS"])
        grpc.channel_ready_future(cls.channel).result(timeout=30)
        cls.stub = grpcv1.FunctionRunnerServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()

    def run_function(self, req):
        return self.stub.RunFunction(req, timeout=30)

    def test_renders_a_resource(self):
        rsp = self.run_function(request(BUCKET))
        self.assertEqual(rsp.meta.tag, "python")
        self.assertEqual(rsp.meta.ttl.seconds, 60)
        self.assertEqual(list(rsp.results), [])
        body = resource.struct_to_dict(rsp.desired.resources["my-bucket"].resource)
        self.assertEqual(
            body,
            {
                "apiVersion": "s3.aws.upbound.io/v1beta1",
                "kind": "Bucket",
                "metadata": {"name": "bucket-36f7e-bucket"},
                "spec": {"forProvider": {"region": "eu-west-1"}},
            },
        )
        conditions = [(c.type, c.status, c.reason, c.target) for c in rsp.conditions]
        self.assertEqual(
            conditions,
            [
                ("FullyResolved", fnv1.STATUS_CONDITION_TRUE, "AllItemsProcessed", fnv1.TARGET_COMPOSITE),
                ("HclDiagnostics", fnv1.STATUS_CONDITION_TRUE, "Eval", fnv1.TARGET_COMPOSITE),
            ],
        )

    def test_status_ready_and_context(self):
        hcl = """-- main.hcl --
resource cm {
  body = { apiVersion = "v1", kind = "ConfigMap", data = { n = "n-${1 + 1}" } }
  ready {
    value = "READY_TRUE"
  }
}
composite status {
  body = { region = req.composite.spec.parameters.region }
}
context {
  key   = "example.com/ctx"
  value = { size = 3 }
}
"""
        rsp = self.run_function(request(hcl))
        self.assertEqual(list(rsp.results), [])
        cm = rsp.desired.resources["cm"]
        self.assertEqual(cm.ready, fnv1.READY_TRUE)
        self.assertEqual(resource.struct_to_dict(cm.resource)["data"], {"n": "n-2"})
        status = resource.struct_to_dict(rsp.desired.composite.resource)["status"]
        self.assertEqual(status, {"region": "eu-west-1"})
        self.assertEqual(resource.struct_to_dict(rsp.context), {"example.com/ctx": {"size": 3}})

    def test_earlier_desired_state_is_kept(self):
        req = request(BUCKET)
        req.desired.resources["earlier"].resource.update({"apiVersion": "v1", "kind": "Secret"})
        req.desired.composite.resource.update({"status": {"fromEarlierStep": True}})
        req.context.update({"other": "kept"})
        rsp = self.run_function(req)
        self.assertEqual(sorted(rsp.desired.resources.keys()), ["earlier", "my-bucket"])
        self.assertEqual(
            resource.struct_to_dict(rsp.desired.composite.resource), {"status": {"fromEarlierStep": True}}
        )
        self.assertEqual(resource.struct_to_dict(rsp.context), {"other": "kept"})

    def test_requirements_follow_capabilities(self):
        hcl = """-- main.hcl --
requirement cfg {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchLabels = { app = "x" }
  }
}
"""
        legacy = self.run_function(request(hcl))
        self.assertEqual(dict(legacy.requirements.extra_resources["cfg"].match_labels.labels), {"app": "x"})
        self.assertEqual(len(legacy.requirements.resources), 0)

        req = request(hcl)
        req.meta.capabilities.extend([fnv1.CAPABILITY_CAPABILITIES, fnv1.CAPABILITY_REQUIRED_RESOURCES])
        modern = self.run_function(req)
        self.assertEqual(modern.requirements.resources["cfg"].kind, "ConfigMap")
        self.assertEqual(len(modern.requirements.extra_resources), 0)

    def test_namespaced_requirement(self):
        # D36: a namespace in select goes to requirements.resources when
        # Crossplane offers the capability, and the answer is read back.
        hcl = """-- main.hcl --
requirement settings {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "settings"
    namespace  = req.composite.metadata.namespace
  }
}
resource app {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "app" }
    data       = { size = req.extra_resources.settings[0].data.size }
  }
}
"""
        xr = dict(XR, metadata={"name": "app-1", "namespace": "team-a"})

        def namespaced_request():
            req = request(hcl)
            req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
            req.meta.capabilities.extend([fnv1.CAPABILITY_CAPABILITIES, fnv1.CAPABILITY_REQUIRED_RESOURCES])
            return req

        first = self.run_function(namespaced_request())
        sel = first.requirements.resources["settings"]
        self.assertEqual((sel.kind, sel.match_name, sel.namespace), ("ConfigMap", "settings", "team-a"))
        self.assertNotIn("app", first.desired.resources)

        req = namespaced_request()
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "settings", "namespace": "team-a"}, "data": {"size": "large"}}
        req.required_resources["settings"].items.add().resource.CopyFrom(resource.dict_to_struct(cm))
        second = self.run_function(req)
        body = resource.struct_to_dict(second.desired.resources["app"].resource)
        self.assertEqual(body["data"], {"size": "large"})
        self.assertEqual(second.requirements.resources["settings"].namespace, "team-a")

        # Without the capability, a namespace cannot be asked for: Fatal.
        legacy = request(hcl)
        legacy.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
        rsp = self.run_function(legacy)
        self.assertEqual(rsp.results[-1].severity, fnv1.SEVERITY_FATAL)
        self.assertIn("needs Crossplane 2.0", rsp.results[-1].message)

    def test_connection_secret_of_a_namespaced_composite(self):
        # D37: Crossplane 2 ignores a modern XR's connection details; they
        # are composed as a Secret.
        hcl = """-- main.hcl --
composite connection {
  body = { host = base64encode("db.example.com") }
}
"""
        req = request(hcl)
        xr = dict(XR, metadata={"name": "app-1", "namespace": "team-a"})
        req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
        rsp = self.run_function(req)
        self.assertEqual(len(rsp.desired.composite.connection_details), 0)
        secret = resource.struct_to_dict(rsp.desired.resources["connection-secret"].resource)
        self.assertEqual(secret["kind"], "Secret")
        self.assertEqual(secret["type"], "connection.crossplane.io/v1alpha1")
        self.assertEqual(secret["metadata"], {"name": "app-1-connection", "namespace": "team-a"})
        self.assertEqual(secret["data"], {"host": "ZGIuZXhhbXBsZS5jb20="})

        # A legacy XR keeps the connection details field.
        legacy = self.run_function(request(hcl))
        self.assertEqual(legacy.desired.composite.connection_details["host"], b"db.example.com")
        self.assertNotIn("connection-secret", legacy.desired.resources)

    def test_credentials_are_readable_and_never_shown(self):
        # D38: req.credentials holds the step's credential data.
        hcl = """-- main.hcl --
resource token {
  body = {
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "token" }
    data       = { token = req.credentials.api.token }
  }
}
result {
  severity = "Warning"
  message  = "token ${base64decode(req.credentials.api.token)}"
}
"""
        # Debug dumps on: run.sh checks that the server log never holds it.
        req = request(hcl, debug=True)
        req.credentials["api"].credential_data.data["token"] = b"tok-h7Qz9"
        rsp = self.run_function(req)
        body = resource.struct_to_dict(rsp.desired.resources["token"].resource)
        self.assertEqual(body["data"], {"token": "dG9rLWg3UXo5"})
        messages = [r.message for r in rsp.results]
        self.assertIn("(sensitive value)", messages)
        for m in messages:
            self.assertNotIn("h7Qz9", m)

    def operation_request(self, hcl, watched=None):
        # D39: an Operation's request has no observed composite.
        req = fnv1.RunFunctionRequest(
            meta=fnv1.RequestMeta(tag="op"),
            input=resource.dict_to_struct(
                {"apiVersion": "function-hcl/v1", "kind": "HclInput", "source": "Inline", "hcl": hcl}
            ),
        )
        req.meta.capabilities.extend([fnv1.CAPABILITY_CAPABILITIES, fnv1.CAPABILITY_REQUIRED_RESOURCES])
        if watched is not None:
            req.required_resources["ops.crossplane.io/watched-resource"].items.add().resource.CopyFrom(
                resource.dict_to_struct(watched)
            )
        return req

    WATCH = """-- main.hcl --
resource labelled {
  body = {
    apiVersion = req.watched.apiVersion
    kind       = req.watched.kind
    metadata = {
      name      = req.watched.metadata.name
      namespace = req.watched.metadata.namespace
      labels    = { audited = "true" }
    }
  }
}
output {
  body = { labelled = req.watched.metadata.name }
}
"""

    def test_watch_operation(self):
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                      "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 2}}
        rsp = self.run_function(self.operation_request(self.WATCH, deployment))
        self.assertEqual([r.message for r in rsp.results], [])
        body = resource.struct_to_dict(rsp.desired.resources["labelled"].resource)
        self.assertEqual(body["metadata"]["labels"], {"audited": "true"})
        self.assertEqual(resource.struct_to_dict(rsp.output), {"labelled": "web"})
        self.assertEqual(len(rsp.conditions), 0)
        self.assertFalse(rsp.desired.HasField("composite"))

    def test_watch_operation_without_a_watched_resource_is_fatal(self):
        rsp = self.run_function(self.operation_request(self.WATCH))
        self.assertEqual(len(rsp.results), 1)
        self.assertEqual(rsp.results[0].severity, fnv1.SEVERITY_FATAL)
        self.assertIn("the request has no watched resource", rsp.results[0].message)
        self.assertIn("unknown values: req.watched", rsp.results[0].message)

    def test_cron_operation(self):
        # A CronOperation's request is the same: no composite, no watched object.
        hcl = """-- main.hcl --
resource report {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "nightly", namespace = "ops" }
    data       = { at = "02:00" }
  }
}
output {
  body = { reports = 1 }
}
result {
  severity = "Normal"
  message  = "report written"
}
"""
        rsp = self.run_function(self.operation_request(hcl))
        self.assertIn("report", rsp.desired.resources)
        self.assertEqual(resource.struct_to_dict(rsp.output), {"reports": 1})
        self.assertEqual([(r.severity, r.message) for r in rsp.results],
                         [(fnv1.SEVERITY_NORMAL, "report written")])

    def test_composite_block_in_an_operation_is_fatal(self):
        hcl = """-- main.hcl --
composite status {
  body = { done = true }
}
"""
        rsp = self.run_function(self.operation_request(hcl))
        self.assertEqual(rsp.results[0].severity, fnv1.SEVERITY_FATAL)
        self.assertIn("an Operation has no composite resource", rsp.results[0].message)

    def test_depends_on_holds_back_then_protects(self):
        # D40: the subnet waits for the VPC to be observed and ready; once
        # both exist, a Usage protects the VPC while the subnet uses it.
        hcl = """-- main.hcl --
resource vpc {
  body = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "VPC", metadata = { name = "vpc-1" } }
}
resource subnet {
  depends_on = ["vpc"]
  body = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "Subnet", metadata = { name = "subnet-1" } }
}
"""
        def observed(name, kind, ready):
            return fnv1.Resource(resource=resource.dict_to_struct({
                "apiVersion": "ec2.aws.upbound.io/v1beta1", "kind": kind,
                "metadata": {"name": name},
                "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
            }))

        first = self.run_function(request(hcl))
        self.assertEqual(set(first.desired.resources), {"vpc"})
        self.assertEqual(first.desired.composite.ready, fnv1.READY_FALSE)
        self.assertIn("waiting for vpc", first.results[0].message)

        req = request(hcl)
        req.observed.resources["vpc"].CopyFrom(observed("vpc-1", "VPC", True))
        second = self.run_function(req)
        self.assertEqual(set(second.desired.resources), {"vpc", "subnet"})

        req.observed.resources["subnet"].CopyFrom(observed("subnet-1", "Subnet", False))
        req.meta.capabilities.extend([fnv1.CAPABILITY_CAPABILITIES])
        third = self.run_function(req)
        usage = resource.struct_to_dict(third.desired.resources["usage-subnet-vpc"].resource)
        self.assertEqual(usage["kind"], "ClusterUsage")
        self.assertEqual(usage["spec"]["of"]["resourceRef"], {"name": "vpc-1"})
        self.assertEqual(usage["spec"]["by"]["resourceRef"], {"name": "subnet-1"})
        self.assertTrue(usage["spec"]["replayDeletion"])

    def test_schema_requirements_and_violations(self):
        hcl = BUCKET.replace("region = req", "regoin = req")
        req = request(hcl)
        req.meta.capabilities.extend([fnv1.CAPABILITY_CAPABILITIES, fnv1.CAPABILITY_REQUIRED_SCHEMAS])
        first = self.run_function(req)
        # The first call emits everything and asks for the schema of each kind.
        self.assertIn("my-bucket", first.desired.resources)
        sel = first.requirements.schemas["Bucket.v1beta1.s3.aws.upbound.io"]
        self.assertEqual((sel.api_version, sel.kind), ("s3.aws.upbound.io/v1beta1", "Bucket"))
        self.assertIn("XS3Bucket.v1.example.com", first.requirements.schemas)

        # Crossplane answers; the second call validates against the schema.
        schema = {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "forProvider": {
                            "type": "object",
                            "properties": {"region": {"type": "string"}},
                        }
                    },
                }
            },
        }
        req.required_schemas["Bucket.v1beta1.s3.aws.upbound.io"].openapi_v3.CopyFrom(resource.dict_to_struct(schema))
        req.required_schemas["XS3Bucket.v1.example.com"].SetInParent()
        second = self.run_function(req)
        self.assertIn("my-bucket", second.desired.resources)
        violations = [r for r in second.results if r.reason == "SchemaViolation"]
        self.assertEqual(len(violations), 1, second.results)
        self.assertEqual(violations[0].severity, fnv1.SEVERITY_WARNING)
        self.assertTrue(
            violations[0].message.startswith(
                'main.hcl:6,36-42: spec.forProvider.regoin: unknown field; did you mean "region"?'
            ),
            violations[0].message,
        )
        self.assertEqual(first.requirements.schemas, second.requirements.schemas)

    def test_incomplete_block_is_a_warning(self):
        hcl = """-- main.hcl --
composite status {
  body = { arn = req.resource.bucket.status.atProvider.arn }
}
"""
        rsp = self.run_function(request(hcl))
        self.assertGreaterEqual(len(rsp.results), 1)
        first = rsp.results[0]
        self.assertEqual(first.severity, fnv1.SEVERITY_WARNING)
        self.assertEqual(first.reason, "incomplete")
        self.assertIn("discarded composite-status", first.message)
        self.assertNotIn(fnv1.SEVERITY_NORMAL, [r.severity for r in rsp.results])
        fully = rsp.conditions[0]
        self.assertEqual((fully.type, fully.status), ("FullyResolved", fnv1.STATUS_CONDITION_FALSE))
        self.assertEqual(fully.reason, "IncompleteItemsPresent")

    def test_a_deferred_resource_makes_the_composite_not_ready(self):
        hcl = """-- main.hcl --
resource bucket {
  body = { apiVersion = "s3.aws.upbound.io/v1beta1", kind = "Bucket" }
}
resource policy {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "BucketPolicy"
    spec       = { bucket = req.resource.bucket.status.atProvider.arn }
  }
}
"""
        rsp = self.run_function(request(hcl))
        self.assertEqual(list(rsp.desired.resources), ["bucket"])
        self.assertEqual(rsp.desired.composite.ready, fnv1.READY_FALSE)
        off = self.run_function(request(hcl, readinessGating="Off"))
        self.assertEqual(off.desired.composite.ready, fnv1.READY_UNSPECIFIED)
        explicit = self.run_function(
            request(hcl + 'composite ready {\n  value = "READY_TRUE"\n}\n')
        )
        self.assertEqual(explicit.desired.composite.ready, fnv1.READY_TRUE)

    def test_bad_input_is_fatal_and_passes_state_through(self):
        req = request(BUCKET, debugg=True)
        req.desired.resources["earlier"].resource.update({"kind": "Kept"})
        rsp = self.run_function(req)
        self.assertEqual(len(rsp.results), 1)
        self.assertEqual(rsp.results[0].severity, fnv1.SEVERITY_FATAL)
        self.assertIn('"debugg"', rsp.results[0].message)
        self.assertEqual(list(rsp.desired.resources.keys()), ["earlier"])
        self.assertEqual(len(rsp.conditions), 0)

    def test_syntax_error_points_at_the_source(self):
        rsp = self.run_function(request("-- main.hcl --\nresource x {\n  body = {\n"))
        self.assertEqual(len(rsp.results), 1)
        self.assertEqual(rsp.results[0].severity, fnv1.SEVERITY_FATAL)
        self.assertRegex(rsp.results[0].message, r"^main\.hcl:\d+,\d+")

    def test_reflection_lists_the_service(self):
        from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
            ProtoReflectionDescriptorDatabase,
        )

        services = ProtoReflectionDescriptorDatabase(self.channel).get_services()
        self.assertIn("apiextensions.fn.proto.v1.FunctionRunnerService", services)


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print(f"python: {result.testsRun - failed} passed, {failed} failed")
    raise SystemExit(0 if failed == 0 and result.testsRun > 0 else 1)
