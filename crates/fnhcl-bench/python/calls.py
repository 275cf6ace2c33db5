"""Sends one RunFunctionRequest many times through grpcio and the stubs of
crossplane-function-sdk-python (what Crossplane's Python functions and
tools use): the client side of `fnhcl-loadtest --mode cpu --client python`.

usage: calls.py ADDRESS REQUEST_FILE WARMUP CALLS

REQUEST_FILE holds the request, protobuf-encoded. Prints "ready" after the
warm-up calls and waits for a line on stdin before the measured calls (so
the caller reads the server's CPU time around exactly those), then prints
the median latency in microseconds.
"""

import sys
import time

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1


def main() -> None:
    address, path, warmup, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(path, "rb") as f:
        req = fnv1.RunFunctionRequest.FromString(f.read())
    channel = grpc.insecure_channel(address)
    stub = grpcv1.FunctionRunnerServiceStub(channel)
    for _ in range(warmup):
        stub.RunFunction(req)
    print("ready", flush=True)
    sys.stdin.readline()
    lat = []
    for _ in range(calls):
        t = time.perf_counter_ns()
        rsp = stub.RunFunction(req)
        lat.append(time.perf_counter_ns() - t)
        if any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
            print(f"fatal: {rsp.results}", file=sys.stderr)
            sys.exit(1)
    lat.sort()
    print(lat[len(lat) // 2] // 1000, flush=True)


if __name__ == "__main__":
    main()
