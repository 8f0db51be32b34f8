/// The API's OpenAPI document, served at `/api/v1/openapi.yaml`: the repository's
/// `openapi.yaml`, compiled in. A test keeps it and the routes in agreement.
enum OpenAPIDocument {
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
}
