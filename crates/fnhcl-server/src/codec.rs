//! RunFunction's gRPC codec: requests are decoded by prost; responses
//! arrive as protobuf bytes already ([`fnhcl_crossplane::wire`]: written
//! straight from the evaluator's output, maps in sorted key order, so the
//! same response gives the same bytes) and are copied into tonic's buffer.
//! [`response_bytes`] encodes an SDK message the same way.

use fnhcl_crossplane::wire::{Encoded, encode_response};
use function_sdk_rust::proto::v1::{RunFunctionRequest, RunFunctionResponse};
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, EncodeBuf, Encoder};
use tonic_prost::{ProstCodec, ProstDecoder};

/// `response` encoded with maps in sorted key order (what the function's
/// own responses are, [`fnhcl_crossplane::wire::encode_response`]).
pub fn response_bytes(response: &RunFunctionResponse) -> Vec<u8> {
    encode_response(response).into_vec()
}

/// RunFunction's codec: prost decodes the request, the response's bytes
/// are sent as they are.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunFunctionCodec;

/// Writes a response encoded already.
#[derive(Clone, Copy, Debug, Default)]
pub struct EncodedEncoder;

impl Encoder for EncodedEncoder {
    type Item = Encoded;
    type Error = Status;

    fn encode(&mut self, item: Encoded, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put_slice(buf, item.as_slice());
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Codec for RunFunctionCodec {
    type Encode = Encoded;
    type Decode = RunFunctionRequest;
    type Encoder = EncodedEncoder;
    type Decoder = ProstDecoder<RunFunctionRequest>;

    fn encoder(&mut self) -> EncodedEncoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> ProstDecoder<RunFunctionRequest> {
        ProstCodec::<RunFunctionResponse, RunFunctionRequest>::raw_decoder(BufferSettings::default())
    }
}
