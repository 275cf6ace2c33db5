//! pure RunFunctionRequest -> RunFunctionResponse mapping.
