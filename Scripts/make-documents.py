#!/usr/bin/env python3
"""Writes the stand-ins for large, split and imperfect public OpenAPI documents that the
tests, the schemathesis run and the document benchmark use
(Tests/OpenAPIDocumentAPITests/Documents/generated/).

The real documents (DigitalOcean's, split into some 2,900 files; OpenAI's, a 3 MB OpenAPI
3.1 document with 3.0 words in it; Box's 1.8 MB one; RealWorld's Conduit) are not ours
to commit: Benchmarks/README.md records their figures. These have their shapes:

  split/          an OpenAPI 3.0 document of thousands of files, as DigitalOcean's is laid
                  out: an operation per file, models, responses and parameters in files
                  of their own, shared attributes reached through `../..`, and code samples
                  named by `x-codeSamples` (never read: vendor extensions are not followed)
  large.json      a 1.5 MB OpenAPI 3.1 document of many operations and wide schemas
  journal.yaml    RealWorld-like: bodies wrapped in one key ({"post": {...}}), slugs and
                  ids the server assigns, a list wrapper with its count, a comment path that
                  takes only DELETE and documents no 404, an API key in a header
  records.json    JSON:API bodies (data / attributes) with string ids
  imperfect.yaml  an OpenAPI 3.1 document with the mistakes of real ones: 3.0 words,
                  bounds beyond int64, loose formats, missing descriptions, duplicate
                  operationIds, an operation and a schema that cannot be read, a dangling
                  reference, an example naming nothing; and form, multipart and XML bodies
  swagger.json    a Swagger 2.0 document: body and formData parameters, a file upload,
                  collectionFormat, definitions, global parameters and responses
  chat.yaml       a streaming LLM-style document (OpenAI's chat completions): OpenAPI 3.1,
                  a request schema with a boolean `stream`, and a 200 answered as JSON or as
                  `text/event-stream` whose `schema` is each event's data (a chunk object)
  messages.yaml   the same in OpenAPI 3.2's words (Anthropic's messages): an `itemSchema`
                  of event objects, a `oneOf` by `event` name, each one's `data` JSON by
                  `contentMediaType` and `contentSchema`; and an operation whose stream is
                  an event-stream text example

Run from the repository root: `python3 Scripts/make-documents.py`. Deterministic: the
same script gives the same files. Needs nothing beyond Python 3.
"""
import json, os, random, shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "OpenAPIDocumentAPITests", "Documents", "generated")


def write(path, text):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def yaml_value(value, indent=0):
    """A small YAML writer (block style), enough for these documents."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return " {}"
        out = ""
        for key, item in value.items():
            k = json.dumps(key) if (not key or any(c in key for c in ":{}[],#&*!|>'\"%@`") or key[0] in "-?" or key.lower() in ("y", "n", "yes", "no", "on", "off", "true", "false", "null")) else key
            body = yaml_value(item, indent + 1)
            out += f"\n{pad}{k}:{body}"
        return out
    if isinstance(value, list):
        if not value:
            return " []"
        out = ""
        for item in value:
            body = yaml_value(item, indent + 1)
            if isinstance(item, dict) and item:
                lines = body.lstrip("\n").split("\n")
                first = lines[0].strip()
                rest = "\n".join(lines[1:])
                out += f"\n{pad}- {first}" + ("\n" + rest if rest else "")
            else:
                out += f"\n{pad}-{body}"
        return out
    return " " + json.dumps(value)


def yaml(document):
    return yaml_value(document).lstrip("\n") + "\n"


# MARK: split/ (DigitalOcean's layout)

ADJECTIVES = ["block", "cloud", "edge", "fleet", "global", "hosted", "inner", "load", "managed", "network", "object",
              "private", "queue", "reserved", "shared", "tiered"]
NOUNS = ["agent", "alert", "backup", "bucket", "cache", "certificate", "cluster", "domain", "firewall", "gateway",
         "image", "key", "monitor", "node", "pool", "record", "route", "snapshot", "tunnel", "volume"]


def split_document():
    rng = random.Random(43)
    resources = [f"{a}_{n}s" for a in ADJECTIVES for n in NOUNS][:150]
    write("split/shared/parameters.yml", yaml({
        "page": {"in": "query", "name": "page", "required": False, "description": "Which page of results to return.",
                 "schema": {"type": "integer", "minimum": 1, "default": 1}},
        "per_page": {"in": "query", "name": "per_page", "required": False, "description": "How many items a page holds.",
                     "schema": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20}},
    }))
    write("split/shared/models/error.yml", yaml({
        "type": "object", "required": ["id", "message"],
        "properties": {"id": {"type": "string", "example": "not_found"}, "message": {"type": "string", "example": "The resource was not found."},
                       "request_id": {"type": "string"}},
    }))
    for name, status, text in [("unauthorized", 401, "Authentication failed."), ("not_found", 404, "The resource was not found."),
                               ("too_many_requests", 429, "Too many requests."), ("server_error", 500, "Server error."),
                               ("unexpected_error", 0, "Unexpected error.")]:
        write(f"split/shared/responses/{name}.yml", yaml({
            "description": text,
            "headers": {"ratelimit-limit": {"$ref": "../headers.yml#/ratelimit-limit"}},
            "content": {"application/json": {"schema": {"$ref": "../models/error.yml"}}},
        }))
    write("split/shared/headers.yml", yaml({
        "ratelimit-limit": {"schema": {"type": "integer", "example": 5000}, "description": "Requests allowed per hour."},
    }))
    write("split/shared/attributes/region.yml", yaml({"type": "string", "enum": ["nyc1", "sfo3", "ams3", "fra1", "sgp1"], "example": "nyc1"}))
    write("split/shared/attributes/tags.yml", yaml({"type": "array", "items": {"type": "string"}, "nullable": True, "example": ["web"]}))
    write("split/shared/attributes/created_at.yml", yaml({"type": "string", "format": "date-time", "readOnly": True,
                                                           "example": "2020-07-21T18:37:44Z"}))
    write("split/shared/meta.yml", yaml({"type": "object", "required": ["total"],
                                         "properties": {"total": {"type": "integer", "minimum": 0, "example": 1}}}))
    write("split/description.yml", yaml({"introduction": "A stand-in for a large split document, as DigitalOcean's is laid out."}))

    paths = {}
    tags = [{"name": "Introduction", "description": {"$ref": "description.yml#/introduction"}}]
    for resource in resources:
        single = resource[:-1]
        title = single.replace("_", " ").title()
        tags.append({"name": title, "description": f"{title}s of the fleet."})
        base = f"split/resources/{resource}"
        fields = {f"{word}": {"type": rng.choice(["string", "integer", "boolean"]), "description": f"The {single}'s {word}."}
                  for word in rng.sample(["size", "status", "label", "weight", "owner", "kind", "vpc", "zone", "count", "enabled"], 4)}
        write(f"{base}/models/{single}.yml", yaml({
            "type": "object", "required": ["id", "name", "region", "created_at"],
            "properties": {
                "id": {"type": "integer", "readOnly": True, "example": 3164444},
                "name": {"type": "string", "maxLength": 255, "example": f"{single}-01"},
                "region": {"$ref": "../../../shared/attributes/region.yml"},
                "tags": {"$ref": "../../../shared/attributes/tags.yml"},
                "created_at": {"$ref": "../../../shared/attributes/created_at.yml"},
                **fields,
            },
        }))
        write(f"{base}/models/{single}_create.yml", yaml({
            "type": "object", "required": ["name", "region"],
            "properties": {"name": {"type": "string", "maxLength": 255, "example": f"{single}-01"},
                           "region": {"$ref": "../../../shared/attributes/region.yml"},
                           "tags": {"$ref": "../../../shared/attributes/tags.yml"}},
        }))
        write(f"{base}/responses/{resource}_list.yml", yaml({
            "description": f"The {single}s.",
            "headers": {"ratelimit-limit": {"$ref": "../../../shared/headers.yml#/ratelimit-limit"}},
            "content": {"application/json": {"schema": {
                "type": "object", "required": [resource, "meta"],
                "properties": {resource: {"type": "array", "items": {"$ref": f"../models/{single}.yml"}},
                               "meta": {"$ref": "../../../shared/meta.yml"}}}}},
        }))
        write(f"{base}/responses/{single}.yml", yaml({
            "description": f"The {single}.",
            "content": {"application/json": {"schema": {
                "type": "object", "required": [single],
                "properties": {single: {"$ref": f"../models/{single}.yml"}}}}},
        }))
        write(f"{base}/parameters.yml", yaml({
            f"{single}_id": {"in": "path", "name": f"{single}_id", "required": True, "description": f"The {single}'s id.",
                             "schema": {"type": "integer", "minimum": 1}, "example": 3164444},
        }))
        errors = {"401": {"$ref": "../../shared/responses/unauthorized.yml"},
                  "429": {"$ref": "../../shared/responses/too_many_requests.yml"},
                  "500": {"$ref": "../../shared/responses/server_error.yml"},
                  "default": {"$ref": "../../shared/responses/unexpected_error.yml"}}
        operations = {
            "list": ("get", f"List all {title}s", {"parameters": [{"$ref": "../../shared/parameters.yml#/page"},
                                                                 {"$ref": "../../shared/parameters.yml#/per_page"}],
                                                  "responses": {"200": {"$ref": f"responses/{resource}_list.yml"}, **errors}}),
            "create": ("post", f"Create a {title}", {"requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"models/{single}_create.yml"}}}},
                "responses": {"201": {"$ref": f"responses/{single}.yml"}, **errors}}),
            "get": ("get", f"Retrieve a {title}", {"parameters": [{"$ref": f"parameters.yml#/{single}_id"}],
                                                   "responses": {"200": {"$ref": f"responses/{single}.yml"},
                                                                 "404": {"$ref": "../../shared/responses/not_found.yml"}, **errors}}),
            "update": ("put", f"Update a {title}", {"parameters": [{"$ref": f"parameters.yml#/{single}_id"}],
                                                    "requestBody": {"required": True, "content": {"application/json": {
                                                        "schema": {"$ref": f"models/{single}_create.yml"}}}},
                                                    "responses": {"200": {"$ref": f"responses/{single}.yml"},
                                                                  "404": {"$ref": "../../shared/responses/not_found.yml"}, **errors}}),
            "delete": ("delete", f"Delete a {title}", {"parameters": [{"$ref": f"parameters.yml#/{single}_id"}],
                                                       "responses": {"204": {"description": "Deleted."},
                                                                     "404": {"$ref": "../../shared/responses/not_found.yml"}, **errors}}),
        }
        for verb, (method, summary, body) in operations.items():
            operation_id = f"{resource}_{verb}"
            write(f"{base}/{operation_id}.yml", yaml({
                "operationId": operation_id, "summary": summary, "tags": [title], **body,
                "x-codeSamples": [{"$ref": f"examples/curl/{operation_id}.yml"}],
                "security": [{"bearer_auth": [f"{resource}:{'read' if method == 'get' else 'write'}"]}],
            }))
            write(f"{base}/examples/curl/{operation_id}.yml", yaml({
                "lang": "cURL", "source": f"curl -X {method.upper()} -H \"Authorization: Bearer $TOKEN\" \"https://api.fleet.example/v2/{resource}\""}))
        paths[f"/v2/{resource}"] = {"get": {"$ref": f"resources/{resource}/{resource}_list.yml"},
                                    "post": {"$ref": f"resources/{resource}/{resource}_create.yml"}}
        paths[f"/v2/{resource}/{{{single}_id}}"] = {"get": {"$ref": f"resources/{resource}/{resource}_get.yml"},
                                                     "put": {"$ref": f"resources/{resource}/{resource}_update.yml"},
                                                     "delete": {"$ref": f"resources/{resource}/{resource}_delete.yml"}}
    write("split/openapi.yaml", yaml({
        "openapi": "3.0.0",
        "info": {"title": "Fleet API (a split stand-in)", "version": "2.0", "description": ""},
        "servers": [{"url": "https://api.fleet.example"}],
        "tags": tags,
        "paths": paths,
        "components": {"securitySchemes": {"bearer_auth": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer_auth": []}],
    }))


# MARK: large.json

def large_document():
    rng = random.Random(1500)
    words = ["account", "balance", "channel", "device", "event", "feature", "group", "history", "invoice", "journal",
             "ledger", "message", "notice", "order", "payment", "quota", "report", "session", "ticket", "usage"]
    schemas = {}
    paths = {}
    for index in range(120):
        noun = f"{words[index % len(words)]}{index // len(words) or ''}"
        model = noun[0].upper() + noun[1:]
        properties = {"id": {"type": "string", "format": "uuid", "readOnly": True, "description": f"The {noun}'s id."}}
        for field in range(20):
            kind = rng.choice(["string", "integer", "number", "boolean", "date-time", "enum", "array"])
            name = f"{rng.choice(words)}_{field}"
            description = f"The {name.replace('_', ' ')} of the {noun}, as the service records it. " * 2
            if kind == "date-time":
                properties[name] = {"type": "string", "format": "date-time", "description": description}
            elif kind == "enum":
                properties[name] = {"type": "string", "enum": ["active", "pending", "closed"], "description": description}
            elif kind == "array":
                properties[name] = {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 5, "description": description}
            elif kind == "integer":
                properties[name] = {"type": "integer", "format": "int64", "minimum": 0, "description": description}
            elif kind == "number":
                properties[name] = {"type": "number", "minimum": 0, "maximum": 100000, "description": description}
            else:
                properties[name] = {"type": kind, "description": description}
        required = ["id"] + sorted(rng.sample([k for k in properties if k != "id"], 6))
        schemas[model] = {"type": "object", "required": required, "properties": properties,
                          "description": f"A {noun} of the service: " + "its fields, as the service keeps them. " * 4}
        schemas[f"New{model}"] = {"type": "object", "required": required[1:3],
                                  "properties": {k: v for k, v in properties.items() if k != "id"}}
        error = {"$ref": "#/components/schemas/Error"}
        paths[f"/{noun}s"] = {
            "get": {"operationId": f"list{model}s", "summary": f"Lists {noun}s", "description": f"Lists the {noun}s, a page at a time. " * 6,
                    "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
                                   {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}}],
                    "responses": {"200": {"description": f"A page of {noun}s", "content": {"application/json": {"schema": {
                        "type": "object", "required": ["items", "total"],
                        "properties": {"items": {"type": "array", "items": {"$ref": f"#/components/schemas/{model}"}},
                                       "total": {"type": "integer", "minimum": 0}}}}}},
                                  "400": {"description": "A bad request", "content": {"application/json": {"schema": error}}}}},
            "post": {"operationId": f"create{model}", "summary": f"Creates a {noun}",
                     "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/New{model}"}}}},
                     "responses": {"201": {"description": f"The {noun}", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model}"}}}},
                                   "422": {"description": "Invalid", "content": {"application/json": {"schema": error}}}}},
        }
        paths[f"/{noun}s/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}],
            "get": {"operationId": f"get{model}", "responses": {
                "200": {"description": f"The {noun}", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model}"}}}},
                "404": {"description": "Not found", "content": {"application/json": {"schema": error}}}}},
            "delete": {"operationId": f"delete{model}", "responses": {"204": {"description": "Deleted"},
                                                                      "404": {"description": "Not found", "content": {"application/json": {"schema": error}}}}},
        }
    schemas["Error"] = {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}, "code": {"type": "integer"}}}
    document = {"openapi": "3.1.0", "info": {"title": "Large (a 1.5 MB stand-in)", "version": "1"},
                "servers": [{"url": "/large"}], "paths": paths, "components": {"schemas": schemas}}
    write("large.json", json.dumps(document, indent=1, sort_keys=True) + "\n")


# MARK: journal.yaml (RealWorld's shapes)

JOURNAL = """openapi: 3.1.0
info:
  title: Journal (RealWorld-like wrapped bodies)
  version: 1.0.0
servers:
  - url: /journal
paths:
  /posts:
    get:
      operationId: ListPosts
      parameters:
        - { $ref: '#/components/parameters/offset' }
        - { $ref: '#/components/parameters/limit' }
        - { name: author, in: query, schema: { type: string } }
      responses:
        '200': { $ref: '#/components/responses/MultiplePosts' }
        '422': { $ref: '#/components/responses/GenericError' }
    post:
      operationId: CreatePost
      security: [ { Token: [] } ]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [post]
              properties:
                post: { $ref: '#/components/schemas/NewPost' }
      responses:
        '201': { $ref: '#/components/responses/SinglePost' }
        '401': { $ref: '#/components/responses/Unauthorized' }
        '422': { $ref: '#/components/responses/GenericError' }
  /posts/{slug}:
    parameters:
      - { name: slug, in: path, required: true, schema: { type: string } }
    get:
      operationId: GetPost
      responses:
        '200': { $ref: '#/components/responses/SinglePost' }
        '422': { $ref: '#/components/responses/GenericError' }
    put:
      operationId: UpdatePost
      security: [ { Token: [] } ]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [post]
              properties:
                post: { $ref: '#/components/schemas/UpdatePost' }
      responses:
        '200': { $ref: '#/components/responses/SinglePost' }
        '401': { $ref: '#/components/responses/Unauthorized' }
        '422': { $ref: '#/components/responses/GenericError' }
    delete:
      operationId: DeletePost
      security: [ { Token: [] } ]
      responses:
        '204': { description: Deleted }
        '401': { $ref: '#/components/responses/Unauthorized' }
        '422': { $ref: '#/components/responses/GenericError' }
  /posts/{slug}/notes:
    parameters:
      - { name: slug, in: path, required: true, schema: { type: string } }
    get:
      operationId: ListNotes
      responses:
        '200':
          description: The post's notes
          content:
            application/json:
              schema:
                type: object
                required: [notes]
                properties:
                  notes: { type: array, items: { $ref: '#/components/schemas/Note' } }
        '422': { $ref: '#/components/responses/GenericError' }
    post:
      operationId: CreateNote
      security: [ { Token: [] } ]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [note]
              properties:
                note:
                  type: object
                  required: [body]
                  properties: { body: { type: string } }
      responses:
        '200':
          description: The note
          content:
            application/json:
              schema:
                type: object
                required: [note]
                properties:
                  note: { $ref: '#/components/schemas/Note' }
        '401': { $ref: '#/components/responses/Unauthorized' }
        '422': { $ref: '#/components/responses/GenericError' }
  /posts/{slug}/notes/{id}:
    parameters:
      - { name: slug, in: path, required: true, schema: { type: string } }
      - { name: id, in: path, required: true, schema: { type: integer } }
    delete:
      operationId: DeleteNote
      security: [ { Token: [] } ]
      responses:
        '204': { description: Deleted }
        '401': { $ref: '#/components/responses/Unauthorized' }
        '422': { $ref: '#/components/responses/GenericError' }
  /labels:
    get:
      operationId: ListLabels
      responses:
        '200':
          description: Labels
          content:
            application/json:
              schema:
                type: object
                required: [labels]
                properties:
                  labels: { type: array, items: { type: string } }
components:
  schemas:
    Author:
      type: object
      required: [username, following]
      properties:
        username: { type: string }
        bio: { type: [string, 'null'] }
        following: { type: boolean }
    NewPost:
      type: object
      required: [title, summary, body]
      properties:
        title: { type: string, minLength: 1 }
        summary: { type: string }
        body: { type: string }
        labels: { type: array, items: { type: string } }
    UpdatePost:
      type: object
      properties:
        title: { type: string, minLength: 1 }
        summary: { type: string }
        body: { type: string }
    Post:
      type: object
      required: [slug, title, summary, body, labels, createdAt, updatedAt, starred, starCount, author]
      properties:
        slug: { type: string }
        title: { type: string }
        summary: { type: string }
        body: { type: string }
        labels: { type: array, items: { type: string } }
        createdAt: { type: string, format: date-time }
        updatedAt: { type: string, format: date-time }
        starred: { type: boolean }
        starCount: { type: integer, minimum: 0 }
        author: { $ref: '#/components/schemas/Author' }
    Note:
      type: object
      required: [id, createdAt, body, author]
      properties:
        id: { type: integer }
        createdAt: { type: string, format: date-time }
        body: { type: string }
        author: { $ref: '#/components/schemas/Author' }
    GenericError:
      type: object
      required: [errors]
      properties:
        errors:
          type: object
          required: [body]
          properties:
            body: { type: array, items: { type: string } }
  parameters:
    offset: { name: offset, in: query, schema: { type: integer, minimum: 0 } }
    limit: { name: limit, in: query, schema: { type: integer, minimum: 1, default: 20 } }
  responses:
    SinglePost:
      description: A post
      content:
        application/json:
          schema:
            type: object
            required: [post]
            properties:
              post: { $ref: '#/components/schemas/Post' }
    MultiplePosts:
      description: Posts, without their bodies
      content:
        application/json:
          schema:
            type: object
            required: [posts, postsCount]
            properties:
              posts:
                type: array
                items:
                  type: object
                  required: [slug, title, summary, labels, createdAt, updatedAt, starred, starCount, author]
                  properties:
                    slug: { type: string }
                    title: { type: string }
                    summary: { type: string }
                    labels: { type: array, items: { type: string } }
                    createdAt: { type: string, format: date-time }
                    updatedAt: { type: string, format: date-time }
                    starred: { type: boolean }
                    starCount: { type: integer, minimum: 0 }
                    author: { $ref: '#/components/schemas/Author' }
              postsCount: { type: integer }
    Unauthorized:
      description: Unauthorized
    GenericError:
      description: Unexpected error
      content:
        application/json:
          schema: { $ref: '#/components/schemas/GenericError' }
  securitySchemes:
    Token:
      type: apiKey
      name: Authorization
      in: header
"""

# MARK: records.json (JSON:API)

def records_document():
    resource = {"type": "object", "required": ["id", "type", "attributes"], "properties": {
        "id": {"type": "string"}, "type": {"type": "string", "enum": ["records"]},
        "attributes": {"$ref": "#/components/schemas/RecordAttributes"}}}
    new_resource = {"type": "object", "required": ["type", "attributes"], "properties": {
        "type": {"type": "string", "enum": ["records"]}, "attributes": {"$ref": "#/components/schemas/NewRecordAttributes"}}}
    error = {"description": "Errors", "content": {"application/vnd.api+json": {"schema": {"$ref": "#/components/schemas/Errors"}}}}
    single = {"type": "object", "required": ["data"], "properties": {"data": resource}}
    document = {
        "openapi": "3.1.0", "info": {"title": "Records (JSON:API)", "version": "1"}, "servers": [{"url": "/jsonapi"}],
        "paths": {
            "/records": {
                "get": {"operationId": "listRecords",
                        "parameters": [{"name": "page[number]", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
                        "responses": {"200": {"description": "Records", "content": {"application/vnd.api+json": {"schema": {
                            "type": "object", "required": ["data", "meta"],
                            "properties": {"data": {"type": "array", "items": resource},
                                           "meta": {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}}}}}},
                                      "400": error}},
                "post": {"operationId": "createRecord",
                         "requestBody": {"required": True, "content": {"application/vnd.api+json": {"schema": {
                             "type": "object", "required": ["data"], "properties": {"data": new_resource}}}}},
                         "responses": {"201": {"description": "Created", "content": {"application/vnd.api+json": {"schema": single}}},
                                       "400": error, "422": error}},
            },
            "/records/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "get": {"operationId": "getRecord", "responses": {"200": {"description": "A record", "content": {"application/vnd.api+json": {"schema": single}}},
                                                                  "404": error}},
                "patch": {"operationId": "updateRecord",
                          "requestBody": {"required": True, "content": {"application/vnd.api+json": {"schema": {
                              "type": "object", "required": ["data"], "properties": {"data": {
                                  "type": "object", "required": ["type", "attributes"], "properties": {
                                      "id": {"type": "string"}, "type": {"type": "string", "enum": ["records"]},
                                      "attributes": {"type": "object", "properties": {"title": {"type": "string"}, "rating": {"type": "integer", "minimum": 1, "maximum": 5}}}}}}}}}},
                          "responses": {"200": {"description": "Changed", "content": {"application/vnd.api+json": {"schema": single}}},
                                        "400": error, "404": error}},
                "delete": {"operationId": "deleteRecord", "responses": {"204": {"description": "Deleted"}, "404": error}},
            },
        },
        "components": {"schemas": {
            "NewRecordAttributes": {"type": "object", "required": ["title"], "properties": {
                "title": {"type": "string", "minLength": 1}, "rating": {"type": "integer", "minimum": 1, "maximum": 5}}},
            "RecordAttributes": {"type": "object", "required": ["title", "rating", "created"], "properties": {
                "title": {"type": "string"}, "rating": {"type": "integer", "minimum": 1, "maximum": 5},
                "created": {"type": "string", "format": "date-time"}}},
            "Errors": {"type": "object", "required": ["errors"], "properties": {"errors": {"type": "array", "items": {
                "type": "object", "properties": {"status": {"type": "string"}, "title": {"type": "string"}, "detail": {"type": "string"}}}}}},
        }},
    }
    write("records.json", json.dumps(document, indent=1, sort_keys=True) + "\n")


# MARK: imperfect.yaml

IMPERFECT = """openapi: 3.1.0
info:
  title: Imperfect (the mistakes of real documents)
  version: '1'
servers:
  - url: /imperfect
paths:
  /completions:
    post:
      operationId: createCompletion
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/CompletionRequest' }
      responses:
        '200':
          description: A completion
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Completion' }
        '400':
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Error' }
  /completions/{id}:
    get:
      operationId: getCompletion
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        '200':
          description: A completion
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Completion' }
              examples:
                linked: { $ref: '#/components/examples/Missing' }
        '404':
          description: Not found
  /files:
    get:
      operationId: listThings
      responses:
        '200':
          description: Files
          content:
            application/json:
              schema:
                type: object
                required: [data]
                properties:
                  data: { type: array, items: { $ref: '#/components/schemas/File' } }
    post:
      operationId: uploadFile
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [purpose, file]
              properties:
                purpose: { type: string, enum: [assistants, batch] }
                file: { type: string, format: binary }
                size: { type: integer, format: int32, minimum: 0 }
      responses:
        '200':
          description: The file
          content:
            application/json:
              schema: { $ref: '#/components/schemas/File' }
        '400': { description: Bad upload }
  /settings:
    put:
      operationId: listThings
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [theme]
              properties:
                theme: { type: string, enum: [light, dark] }
                volume: { type: integer, minimum: 0, maximum: 10 }
          application/xml:
            schema:
              type: object
              required: [theme]
              xml: { name: settings }
              properties:
                theme: { type: string, enum: [light, dark] }
                volume: { type: integer, minimum: 0, maximum: 10 }
      responses:
        '204': { description: Saved }
        '400': { description: Bad settings }
  /broken:
    get:
      operationId: broken
      responses: 7
  /uses-bad-schema:
    get:
      operationId: usesBadSchema
      responses:
        '200':
          description: Uses a schema that cannot be read
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Bad' }
  /dangling:
    get:
      operationId: dangling
      responses:
        '200':
          description: Names a schema the document does not have
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Missing' }
components:
  schemas:
    CompletionRequest:
      type: object
      required: [model, prompt]
      properties:
        model: { type: string, example: small-1 }
        prompt: { type: string }
        temperature:
          type: number
          minimum: 0
          maximum: 2
          exclusiveMinimum: true
          nullable: true
        max_tokens: { type: integer, minimum: 1, maximum: 9223372036854775807 }
        seed: { type: integer, minimum: -9223372036854775808, maximum: 9223372036854775807 }
        user: { type: string, format: UUID, example: user-1234 }
    Completion:
      type: object
      required: [id, created, text]
      properties:
        id: { type: string, example: cmpl-1 }
        created: { type: integer, format: unixtime }
        text: { type: string }
        finish_reason: { type: string, enum: [stop, length], nullable: true }
        link: { type: string, format: uri, example: /completions/cmpl-1 }
    File:
      type: object
      required: [id, bytes, purpose]
      properties:
        id: { type: string }
        bytes: { type: integer, required: true }
        purpose: { type: string }
        created_at: { type: string, format: datetime }
    Error:
      type: object
      required: [message]
      properties:
        message: { type: string }
    Bad:
      type: 17
"""

# MARK: swagger.json (Swagger 2.0)

def swagger_document():
    document = {
        "swagger": "2.0",
        "info": {"title": "Inventory (Swagger 2.0)", "version": "1.0"},
        "host": "inventory.example", "basePath": "/v1", "schemes": ["https"],
        "consumes": ["application/json"], "produces": ["application/json"],
        "securityDefinitions": {"api_key": {"type": "apiKey", "name": "X-API-Key", "in": "header"}},
        "parameters": {"limit": {"name": "limit", "in": "query", "type": "integer", "minimum": 1, "maximum": 50}},
        "responses": {"NotFound": {"description": "Not found", "schema": {"$ref": "#/definitions/Error"}}},
        "paths": {
            "/items": {
                "get": {"operationId": "listItems",
                        "parameters": [{"$ref": "#/parameters/limit"},
                                       {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "csv"}],
                        "responses": {"200": {"description": "Items", "schema": {"type": "array", "items": {"$ref": "#/definitions/Item"}},
                                              "examples": {"application/json": [{"id": 1, "name": "bolt", "tags": ["metal"]}]}},
                                      "400": {"description": "Bad parameters", "schema": {"$ref": "#/definitions/Error"}}}},
                "post": {"operationId": "createItem",
                         "parameters": [{"name": "item", "in": "body", "required": True, "schema": {"$ref": "#/definitions/NewItem"}}],
                         "responses": {"201": {"description": "Created", "schema": {"$ref": "#/definitions/Item"},
                                               "headers": {"X-Rate-Limit": {"type": "integer", "description": "Calls left"}}},
                                       "422": {"description": "Invalid", "schema": {"$ref": "#/definitions/Error"}}}},
            },
            "/items/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "type": "integer", "format": "int64"}],
                "get": {"operationId": "getItem", "responses": {"200": {"description": "An item", "schema": {"$ref": "#/definitions/Item"}},
                                                                "404": {"$ref": "#/responses/NotFound"}}},
                "delete": {"operationId": "deleteItem", "security": [{"api_key": []}],
                           "responses": {"204": {"description": "Deleted"}, "401": {"description": "No API key"},
                                         "404": {"$ref": "#/responses/NotFound"}}},
            },
            "/items/{id}/photo": {
                "post": {"operationId": "uploadPhoto", "consumes": ["multipart/form-data"],
                         "parameters": [{"name": "id", "in": "path", "required": True, "type": "integer"},
                                        {"name": "rating", "in": "formData", "type": "integer", "minimum": 1, "maximum": 5},
                                        {"name": "photo", "in": "formData", "required": True, "type": "file"}],
                         "responses": {"200": {"description": "Uploaded", "schema": {"type": "object", "properties": {"url": {"type": "string"}}}},
                                       "400": {"description": "Bad upload", "schema": {"$ref": "#/definitions/Error"}},
                                       "404": {"$ref": "#/responses/NotFound"}}},
            },
        },
        "definitions": {
            "NewItem": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "minLength": 1}, "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"type": "string", "x-nullable": True}}},
            "Item": {"allOf": [{"$ref": "#/definitions/NewItem"}, {"type": "object", "required": ["id"], "properties": {
                "id": {"type": "integer", "format": "int64"}}}]},
            "Error": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}},
        },
    }
    write("swagger.json", json.dumps(document, indent=1, sort_keys=True) + "\n")


# MARK: chat.yaml and messages.yaml (streaming LLM-style documents)

def chat_document():
    message = {"type": "object", "required": ["role", "content"], "properties": {
        "role": {"type": "string", "enum": ["system", "user", "assistant"]}, "content": {"type": "string"}}}
    usage = {"type": "object", "required": ["prompt_tokens", "completion_tokens", "total_tokens"], "properties": {
        "prompt_tokens": {"type": "integer", "minimum": 0}, "completion_tokens": {"type": "integer", "minimum": 0},
        "total_tokens": {"type": "integer", "minimum": 0}}}
    document = {
        "openapi": "3.1.0", "info": {"title": "Chat (OpenAI-like)", "version": "1"}, "servers": [{"url": "/v1"}],
        "paths": {
            "/chat/completions": {"post": {
                "operationId": "createChatCompletion",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateChatCompletionRequest"}}}},
                "responses": {
                    "200": {"description": "A completion, or with stream: true its chunks as server-sent events", "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/ChatCompletion"}},
                        "text/event-stream": {"schema": {"$ref": "#/components/schemas/ChatCompletionChunk"}}}},
                    "400": {"description": "Bad request", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
            "/models": {"get": {
                "operationId": "listModels",
                "responses": {"200": {"description": "Models", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["object", "data"], "properties": {
                        "object": {"const": "list"}, "data": {"type": "array", "items": {"type": "object", "required": ["id", "object"], "properties": {
                            "id": {"type": "string"}, "object": {"const": "model"}}}}}}}}}}}},
        },
        "components": {"schemas": {
            "CreateChatCompletionRequest": {"type": "object", "required": ["model", "messages"], "properties": {
                "model": {"type": "string", "minLength": 1}, "messages": {"type": "array", "minItems": 1, "items": message},
                "stream": {"type": "boolean", "default": False}, "temperature": {"type": "number", "minimum": 0, "maximum": 2},
                "max_tokens": {"type": "integer", "minimum": 1}}},
            "ChatCompletion": {"type": "object", "required": ["id", "object", "created", "model", "choices"], "properties": {
                "id": {"type": "string", "pattern": "^chatcmpl-[A-Za-z0-9]{8}$"}, "object": {"const": "chat.completion"},
                "created": {"type": "integer", "minimum": 0}, "model": {"type": "string"},
                "choices": {"type": "array", "minItems": 1, "maxItems": 1, "items": {"type": "object", "required": ["index", "message", "finish_reason"], "properties": {
                    "index": {"type": "integer", "minimum": 0}, "message": message,
                    "finish_reason": {"type": "string", "enum": ["stop", "length"]}}}},
                "usage": usage}},
            "ChatCompletionChunk": {"type": "object", "required": ["id", "object", "created", "model", "choices"], "properties": {
                "id": {"type": "string", "pattern": "^chatcmpl-[A-Za-z0-9]{8}$"}, "object": {"const": "chat.completion.chunk"},
                "created": {"type": "integer", "minimum": 0}, "model": {"type": "string"},
                "choices": {"type": "array", "minItems": 1, "maxItems": 1, "items": {"type": "object", "required": ["index", "delta"], "properties": {
                    "index": {"type": "integer", "minimum": 0},
                    "delta": {"type": "object", "properties": {"role": {"type": "string", "enum": ["assistant"]}, "content": {"type": "string", "maxLength": 12}}},
                    "finish_reason": {"type": ["string", "null"], "enum": ["stop", "length", None]}}}}}},
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "object", "required": ["message"], "properties": {
                "message": {"type": "string"}, "type": {"type": "string"}}}}},
        }},
    }
    write("chat.yaml", yaml(document))


def messages_document():
    def event(name, schema):
        return {"type": "object", "required": ["event", "data"], "properties": {
            "event": {"const": name},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": {"$ref": f"#/components/schemas/{schema}"}}}}
    document = {
        "openapi": "3.2.0", "info": {"title": "Messages (Anthropic-like)", "version": "1"}, "servers": [{"url": "/v1"}],
        "paths": {
            "/messages": {"post": {
                "operationId": "createMessage",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object", "required": ["model", "max_tokens", "messages"], "properties": {
                    "model": {"type": "string"}, "max_tokens": {"type": "integer", "minimum": 1}, "stream": {"type": "boolean"},
                    "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role", "content"], "properties": {
                        "role": {"type": "string", "enum": ["user", "assistant"]}, "content": {"type": "string"}}}}}}}}},
                "responses": {
                    "200": {"description": "A message, or with stream: true its events", "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Message"}},
                        "text/event-stream": {"itemSchema": {"$ref": "#/components/schemas/MessageStreamEvent"}}}},
                        "4XX": {"description": "An error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
            "/complete": {"post": {
                "operationId": "complete",
                "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["prompt"], "properties": {
                    "prompt": {"type": "string"}, "stream": {"type": "boolean"}}}}}},
                "responses": {"200": {"description": "The completion's events", "content": {"text/event-stream": {
                    "itemSchema": {"type": "object", "required": ["data"], "properties": {
                        "event": {"type": "string", "enum": ["completion", "done"]}, "id": {"type": "string"},
                        "data": {"type": "string"}}},
                    "example": "event: completion\nid: 1\ndata: Hello\n\nevent: completion\nid: 2\ndata: , world\n\n: a comment\n\nevent: done\nid: 3\ndata: [DONE]\n\n"}}},
                    "4XX": {"description": "An error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
        },
        "components": {"schemas": {
            "Message": {"type": "object", "required": ["id", "type", "role", "content"], "properties": {
                "id": {"type": "string"}, "type": {"const": "message"}, "role": {"const": "assistant"},
                "content": {"type": "array", "items": {"$ref": "#/components/schemas/TextBlock"}}}},
            "Error": {"type": "object", "required": ["type", "error"], "properties": {
                "type": {"const": "error"}, "error": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}}},
            "TextBlock": {"type": "object", "required": ["type", "text"], "properties": {"type": {"const": "text"}, "text": {"type": "string"}}},
            "MessageStart": {"type": "object", "required": ["type", "message"], "properties": {
                "type": {"const": "message_start"}, "message": {"$ref": "#/components/schemas/Message"}}},
            "ContentBlockDelta": {"type": "object", "required": ["type", "index", "delta"], "properties": {
                "type": {"const": "content_block_delta"}, "index": {"type": "integer", "minimum": 0},
                "delta": {"type": "object", "required": ["type", "text"], "properties": {"type": {"const": "text_delta"}, "text": {"type": "string"}}}}},
            "MessageStop": {"type": "object", "required": ["type"], "properties": {"type": {"const": "message_stop"}}},
            "Ping": {"type": "object", "required": ["type"], "properties": {"type": {"const": "ping"}}},
            "MessageStreamEvent": {"oneOf": [event("message_start", "MessageStart"), event("content_block_delta", "ContentBlockDelta"),
                                             event("message_stop", "MessageStop"), event("ping", "Ping")]},
        }},
    }
    write("messages.yaml", yaml(document))


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    split_document()
    large_document()
    write("journal.yaml", JOURNAL)
    records_document()
    write("imperfect.yaml", IMPERFECT)
    swagger_document()
    chat_document()
    messages_document()
    count = sum(len(files) for _, _, files in os.walk(ROOT))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(ROOT) for f in files)
    print(f"wrote {count} files, {size // 1024} KB, in {os.path.relpath(ROOT)}")
