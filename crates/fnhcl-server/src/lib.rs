//! gRPC FunctionRunnerService server.
