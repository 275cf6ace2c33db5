"""Sends one RunFunctionRequest many times through grpcio and the stubs of
crossplane-function-sdk-python (what Crossplane's Python functions and
tools use): the client side of `fnhcl-loadtest --mode cpu --client python`.

usage: calls.py ADDRESS REQUEST_FILE WARMUP CALLS [raw]

REQUEST_FILE holds the request, protobuf-encoded. Prints "ready" after the
warm-up calls and waits for a line on stdin before the measured calls (so
the caller reads the server's CPU time around exactly those), then prints
the median latency in microseconds.

With "raw" the stubs' serializer and deserializer are left out (grpcio's
request_serializer and response_deserializer None): the request's bytes are
sent as they are and each response's bytes are compared with the first
response's, which is decoded once and checked. What is left out is only
this client's own protobuf work (Crossplane decodes in Go on its side).
"""

import sys
import time

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


def check(rsp: fnv1.RunFunctionResponse) -> None:
    if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
        print(f"fatal: {rsp.results}", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    address, path, warmup, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    raw = len(sys.argv) > 5 and sys.argv[5] == "raw"
    with open(path, "rb") as f:
        data = f.read()
    channel = grpc.insecure_channel(address)
    if raw:
        req = data
        call = channel.unary_unary(
            "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
            request_serializer=None,
            response_deserializer=None,
        )
    else:
        req = fnv1.RunFunctionRequest.FromString(data)
        call = grpcv1.FunctionRunnerServiceStub(channel).RunFunction
    first = call(req)
    if raw:
        check(fnv1.RunFunctionResponse.FromString(first))
    else:
        check(first)
    for _ in range(warmup):
        call(req)
    print("ready", flush=True)
    sys.stdin.readline()
    lat = []
    for _ in range(calls):
        t = time.perf_counter_ns()
        rsp = call(req)
        lat.append(time.perf_counter_ns() - t)
        if raw:
            if rsp != first:
                print(f"response of {len(rsp)} bytes differs from the first", file=sys.stderr)
                sys.exit(1)
        else:
            check(rsp)
    lat.sort()
    print(lat[len(lat) // 2] // 1000, flush=True)


if __name__ == "__main__":
    main()
