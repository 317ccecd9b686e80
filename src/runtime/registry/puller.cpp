// The image puller (see puller.h).
#include "runtime/registry/puller.h"

#include "runtime/digest.h"
#include "runtime/reference.h"
#include "runtime/registry/endpoint_session.h"
#include "runtime/registry/endpoints.h"
#include "runtime/registry/manifest.h"

namespace k3c::runtime::registry {
namespace {

struct Resolved {
  std::string bytes;
  std::string digest;
  std::string content_type;
};

std::string with_server_message(std::string text, const TransportResponse& resp) {
  const std::string said = registry_errors(resp.body);
  return said.empty() ? text : text + ": " + said;
}

// One pull on one endpoint whose reference resolved.
class Fetch {
 public:
  Fetch(EndpointSession& session, const PullOptions& options, ImageStore& store)
      : session_(session), options_(options), store_(store) {}

  std::string url(std::string_view kind, std::string_view what) const {
    const Endpoint& e = session_.endpoint();
    return e.base + "/" + e.path + "/" + std::string(kind) + "/" + std::string(what);
  }

  // GET a manifest by tag or digest.
  Result<Resolved> manifest(const std::string& name, const std::string& tag_or_digest) {
    TransportRequest req;
    req.url = url("manifests", tag_or_digest);
    req.headers = {{"Accept", manifest_accept()}};
    req.timeout = options_.request_timeout;
    req.idle_timeout = options_.idle_timeout;
    req.body_limit = options_.manifest_limit;
    Result<TransportResponse> resp = session_.send(req);
    if (!resp.is_ok()) {
      return error(resp.status().code(),
                   "failed to resolve reference \"" + name + "\": " + resp.status().message());
    }
    const std::string prefix = "failed to resolve reference \"" + name + "\": ";
    if (resp->status == 404) {
      return error(Code::kNotFound, with_server_message(prefix + name + ": not found", *resp));
    }
    if (resp->status == 401 || resp->status == 403) {
      return error(resp->status == 401 ? Code::kUnauthorized : Code::kForbidden,
                   with_server_message(prefix +
                                           "pull access denied, repository does not exist or "
                                           "may require authorization: " +
                                           status_text(resp->status),
                                       *resp));
    }
    if (resp->status != 200) {
      return error(Code::kServiceUnavailable,
                   with_server_message(prefix + "unexpected status from GET request to " + req.url +
                                           ": " + status_text(resp->status),
                                       *resp));
    }
    Resolved r{std::move(resp->body), "", std::string(resp->header("content-type").value_or(""))};
    r.digest = sha256_of(r.bytes);
    if (auto said = resp->header("docker-content-digest");
        said && said->starts_with("sha256:") && *said != r.digest) {
      return error(Code::kInvalid, prefix + "the registry says the manifest is " +
                                       std::string(*said) + " but its content is " + r.digest);
    }
    return r;
  }

  // A blob into a writer, checked against its descriptor.
  Result<FetchedBlob> blob(const Descriptor& d, const std::string& kind, uint64_t limit) {
    const std::string ref = kind + "-" + d.digest;
    if (static_cast<uint64_t>(d.size) > limit) {
      return error(Code::kInvalid, "failed to fetch " + ref + ": size " + std::to_string(d.size) +
                                       " is over the limit of " + std::to_string(limit));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<BlobWriter> writer, store_.blob_writer());
    uint64_t received = 0;
    TransportRequest req;
    req.url = url("blobs", d.digest);
    req.timeout = options_.blob_timeout;
    req.idle_timeout = options_.idle_timeout;
    req.sink = [&](std::string_view piece) -> Status {
      received += piece.size();
      if (received > static_cast<uint64_t>(d.size)) {
        return error(Code::kInvalid, "failed to copy " + ref + ": more than the " +
                                         std::to_string(d.size) + " bytes its descriptor says");
      }
      return writer->write(piece.data(), piece.size());
    };
    ASSIGN_OR_RETURN(TransportResponse resp, session_.send(req));
    if (resp.status != 200) {
      return error(resp.status == 404 ? Code::kNotFound : Code::kServiceUnavailable,
                   with_server_message("failed to copy " + ref + ": unexpected status code " +
                                           req.url + ": " + status_text(resp.status),
                                       resp));
    }
    ASSIGN_OR_RETURN(std::string content, writer->finish());
    if (received != static_cast<uint64_t>(d.size)) {
      return error(Code::kInvalid, "failed to copy " + ref + ": unexpected EOF: got " +
                                       std::to_string(received) + " of " + std::to_string(d.size) +
                                       " bytes");
    }
    if (content != d.digest) {
      return error(Code::kInvalid, "failed commit on ref \"" + ref +
                                       "\": unexpected commit digest " + content + ", expected " +
                                       d.digest + ": failed precondition");
    }
    return FetchedBlob{std::move(writer), d.digest, d.size, d.media_type};
  }

  Result<FetchedBlob> bytes_blob(const std::string& bytes, const std::string& digest,
                                 const std::string& media_type) {
    ASSIGN_OR_RETURN(std::unique_ptr<BlobWriter> writer, store_.blob_writer());
    RETURN_IF_ERROR(writer->write(bytes.data(), bytes.size()));
    ASSIGN_OR_RETURN(std::string content, writer->finish());
    (void)content;  // add_pulled compares it with `digest`
    return FetchedBlob{std::move(writer), digest, static_cast<int64_t>(bytes.size()), media_type};
  }

  Result<ImageRecord> image(const Reference& ref, Resolved top) {
    ASSIGN_OR_RETURN(Manifest m, parse_manifest(top.bytes, top.content_type));
    Resolved chosen = top;
    if (m.is_index) {
      ASSIGN_OR_RETURN(Descriptor d, select_platform(m.manifests, options_.platform));
      ASSIGN_OR_RETURN(chosen, manifest(ref.to_string(), d.digest));
      if (chosen.digest != d.digest || static_cast<int64_t>(chosen.bytes.size()) != d.size) {
        return error(Code::kInvalid, "manifest " + d.digest + ": content is " + chosen.digest +
                                         " (" + std::to_string(chosen.bytes.size()) +
                                         " bytes), not what the index says");
      }
      if (chosen.content_type.empty()) chosen.content_type = d.media_type;
      ASSIGN_OR_RETURN(m, parse_manifest(chosen.bytes, chosen.content_type));
      if (m.is_index) return error(Code::kInvalid, "manifest " + d.digest + " is another index");
    }
    FetchedImage image;
    if (!ref.tag.empty()) image.references.push_back(ref.repository() + ":" + ref.tag);
    image.references.push_back(ref.repository() + "@" + top.digest);
    // Already stored (a re-pull, imagePullPolicy Always): only the references are new.
    Result<ImageRecord> present = store_.add_references_if_present(chosen.digest, image.references);
    if (present.is_ok() || present.status().code() != Code::kNotFound) return present;
    ASSIGN_OR_RETURN(image.manifest, bytes_blob(chosen.bytes, chosen.digest, m.media_type));
    ASSIGN_OR_RETURN(image.config, blob(m.config, "config", options_.config_limit));
    for (const Descriptor& layer : m.layers) {
      ASSIGN_OR_RETURN(FetchedBlob b, blob(layer, "layer", options_.layer_limit));
      image.layers.push_back(std::move(b));
    }
    return store_.add_pulled(std::move(image));
  }

 private:
  EndpointSession& session_;
  const PullOptions& options_;
  ImageStore& store_;
};

}  // namespace

Puller::Puller(std::shared_ptr<HttpTransport> transport, RegistriesConfig config,
               PullOptions options)
    : transport_(std::move(transport)), config_(std::move(config)), options_(std::move(options)) {}

Result<ImageRecord> Puller::pull(ImageStore& store, std::string_view text,
                                 const std::optional<RegistryAuth>& auth) const {
  Result<Reference> ref = parse_reference(text);
  if (!ref.is_ok()) {
    return error(Code::kInvalid, "failed to pull and unpack image \"" + std::string(text) +
                                     "\": " + ref.status().message());
  }
  const std::string name = ref->to_string();
  auto failed = [&](const Status& s) {
    return error(s.code(), "failed to pull and unpack image \"" + name + "\": " + s.message());
  };
  Result<std::vector<Endpoint>> endpoints = endpoints_for(*ref, config_);
  if (!endpoints.is_ok()) return failed(endpoints.status());
  // Each endpoint in turn until one resolves the reference; the image is then fetched from
  // that one. The error reported is the first that is not "not found" (a mirror's TLS error
  // says more than the fallback's), else the last.
  std::optional<Status> reported;
  for (const Endpoint& e : *endpoints) {
    std::optional<RegistryAuth> credentials = e.config.auth;
    // As containerd: the caller's credentials belong to the registry's own host, whether it is
    // reached as the default endpoint or through an endpoint naming that host.
    if (auth && (e.is_default || e.host == ref->domain)) credentials = auth;
    EndpointSession session(*transport_, e, credentials, options_.request_timeout);
    Fetch fetch(session, options_, store);
    Result<Resolved> top = fetch.manifest(name, ref->digest.empty() ? ref->tag : ref->digest);
    if (top.is_ok() && !ref->digest.empty() && top->digest != ref->digest) {
      top = error(Code::kInvalid, "failed to resolve reference \"" + name +
                                      "\": the registry answered manifest " + top->digest);
    }
    if (!top.is_ok()) {
      if (!reported || reported->code() == Code::kNotFound) reported = top.status();
      continue;
    }
    Result<ImageRecord> image = fetch.image(*ref, std::move(top).value());
    if (!image.is_ok()) return failed(image.status());
    return image;
  }
  return failed(*reported);
}

}  // namespace k3c::runtime::registry
