//! RunFunction's gRPC codec, for tonic's `Grpc::unary`, which now sees only
//! the requests it refuses (compressed ones; every other RunFunction call
//! is read and answered by `unary.rs` without a codec): requests are
//! handed on as their bytes (the
//! function reads them where they are, [`fnhcl_crossplane::view`]; tonic's
//! buffer is split off, not copied); responses arrive as protobuf bytes
//! already ([`fnhcl_crossplane::wire`]: written
//! straight from the evaluator's output, the maps it writes in sorted key
//! order and the parts passed through copied as the request has them, so
//! the same request bytes give the same response bytes) and are copied
//! into tonic's buffer.
//! [`response_bytes`] encodes an SDK message the same way.

use bytes::{Buf as _, Bytes};
use fnhcl_crossplane::wire::{Encoded, encode_response};
use function_sdk_rust::proto::v1::RunFunctionResponse;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// `response` encoded with maps in sorted key order (what the function's
/// own responses are, [`fnhcl_crossplane::wire::encode_response`]).
pub fn response_bytes(response: &RunFunctionResponse) -> Vec<u8> {
    encode_response(response).into_vec()
}

/// RunFunction's codec: the request's bytes are handed on, the response's
/// bytes are sent as they are.
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

/// Hands a request on as its bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct BytesDecoder;

impl Decoder for BytesDecoder {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Codec for RunFunctionCodec {
    type Encode = Encoded;
    type Decode = Bytes;
    type Encoder = EncodedEncoder;
    type Decoder = BytesDecoder;

    fn encoder(&mut self) -> EncodedEncoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> BytesDecoder {
        BytesDecoder
    }
}
