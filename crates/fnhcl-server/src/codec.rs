//! RunFunction's gRPC codec: prost decodes the request and encodes the
//! response, as tonic's `ProstCodec` does, except that a request prost
//! refuses is handed on as the decode error ([`Decoded`]) rather than
//! ending the call with a bare gRPC status: the function answers it with a
//! Fatal result naming the problem, which Crossplane shows on the XR.
//! The request is read by [`fnhcl_crossplane::decode_request`], which
//! bounds how deeply its messages nest before prost reads them.

use bytes::Buf as _;
use function_sdk_rust::proto::v1::{RunFunctionRequest, RunFunctionResponse};
use prost::Message as _;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// A request as received: read by prost (with the length of its bytes)
/// when it is at most [`crate::lanes::SMALL_REQUEST_BYTES`] long, else its
/// bytes, which the run's pool thread decodes (reading megabytes must not
/// hold a runtime thread, which answers every other call).
#[derive(Debug)]
pub enum Received {
    Message(RunFunctionRequest, usize),
    Bytes(bytes::Bytes),
}

/// A request as received, or why prost could not read it.
pub type Decoded = Result<Received, String>;

/// RunFunction's codec.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunFunctionCodec;

/// Encodes a response with prost.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseEncoder;

impl Encoder for ResponseEncoder {
    type Item = RunFunctionResponse;
    type Error = Status;

    fn encode(&mut self, item: RunFunctionResponse, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.encode(buf)
            .map_err(|e| Status::internal(format!("cannot encode the response: {e}")))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// Decodes a request with prost, keeping a decode error as the item.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestDecoder;

impl Decoder for RequestDecoder {
    type Item = Decoded;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Decoded>, Status> {
        let len = src.remaining();
        if len > crate::lanes::SMALL_REQUEST_BYTES {
            return Ok(Some(Ok(Received::Bytes(src.copy_to_bytes(len)))));
        }
        // tonic hands over one contiguous buffer.
        let decoded = if src.chunk().len() == len {
            fnhcl_crossplane::decode_request(src.chunk())
        } else {
            fnhcl_crossplane::decode_request(&src.copy_to_bytes(len))
        }
        .map(|req| Received::Message(req, len));
        // Whatever prost left unread is not part of any later message.
        src.advance(src.remaining());
        Ok(Some(decoded))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Codec for RunFunctionCodec {
    type Encode = RunFunctionResponse;
    type Decode = Decoded;
    type Encoder = ResponseEncoder;
    type Decoder = RequestDecoder;

    fn encoder(&mut self) -> ResponseEncoder {
        ResponseEncoder
    }

    fn decoder(&mut self) -> RequestDecoder {
        RequestDecoder
    }
}
