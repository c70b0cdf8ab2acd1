/// The daemon API's OpenAPI 3.1 document, served at `<base URL>/api/openapi.json`: in the
/// binary, so a copied `carryon` serves it with no file beside it. `DaemonAPITests` checks it
/// against the routes the API answers, both ways. (Made by `Scripts/openapi.py`; edit there.)
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Carryon daemon API",
    "version": "1",
    "description": "The JSON API of the Carryon daemon (carryon serve). Every path is below the server's base URL, which carries its token (http://127.0.0.1:PORT/TOKEN); a request without the token, or with another Host, is refused with 403. A request that changes anything is refused with 403 foreign-origin when its Origin header is another web page's."
  },
  "paths": {
    "/api/assets": {
      "get": {
        "operationId": "listAssets",
        "summary": "The assets, oldest first (or in order), those of the states asked for whose name contains q or whose id starts with it; with limit, a page: a Link header (rel=\"next\", RFC 8288) names the next page, whose cursor carries on after the last asset of this one, so that assets added or deleted meanwhile make no asset repeat or go missing",
        "responses": {
          "200": {
            "description": "OK",
            "headers": {
              "Link": {
                "description": "<assets?cursor=C&…>; rel=\"next\" when there is a next page",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Asset"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "state",
            "in": "query",
            "required": false,
            "description": "States as shown (a download no live process holds is suspended), comma-separated or repeated",
            "schema": {
              "type": "string",
              "examples": [
                "failed,suspended"
              ]
            }
          },
          {
            "name": "q",
            "in": "query",
            "required": false,
            "description": "Text in the name, or the start of the id, ignoring case",
            "schema": {
              "type": "string",
              "maxLength": 200
            }
          },
          {
            "name": "order",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "created",
                "newest",
                "name",
                "size"
              ],
              "default": "created"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many assets (every one without)",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 10000
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "description": "The next page's cursor, from the Link header; made for one order",
            "schema": {
              "type": "string"
            }
          }
        ]
      },
      "post": {
        "operationId": "startDownload",
        "summary": "Start a download",
        "responses": {
          "201": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "413": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewDownload"
              }
            }
          }
        }
      }
    },
    "/api/assets/{id}": {
      "get": {
        "operationId": "showAsset",
        "summary": "One asset",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "404": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      },
      "delete": {
        "operationId": "deleteAsset",
        "summary": "Delete an asset with its bundle and keys",
        "responses": {
          "204": {
            "description": "Deleted"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/assets/{id}/cancel": {
      "post": {
        "operationId": "cancelDownload",
        "summary": "Cancel its download",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/assets/{id}/suspend": {
      "post": {
        "operationId": "suspendDownload",
        "summary": "Suspend its download (a download that is not running stays as it is)",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/assets/{id}/resume": {
      "post": {
        "operationId": "resumeDownload",
        "summary": "Resume its download",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/assets/{id}/selections": {
      "post": {
        "operationId": "addSelections",
        "summary": "Add audio, subtitles or a variant, as carryon add does, and resume",
        "responses": {
          "202": {
            "description": "Added",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "added",
                    "asset"
                  ],
                  "properties": {
                    "added": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    },
                    "asset": {
                      "$ref": "#/components/schemas/Asset"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "$ref": "#/components/responses/Error"
          },
          "413": {
            "$ref": "#/components/responses/Error"
          },
          "422": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewSelections"
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/assets/{id}/verify": {
      "post": {
        "operationId": "verifyAsset",
        "summary": "Check its bundle as carryon verify does: every resource on disk read once, against the SHA-256 recorded as it was downloaded and for its structure (record=true records the digests an earlier release did not); with repair=true, damage found is mended from the origin by the asset's download (202), what cannot be mended recorded again as it was once the download stops",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Verified"
                }
              }
            }
          },
          "202": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Verified"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          },
          {
            "name": "repair",
            "in": "query",
            "required": false,
            "schema": {
              "type": "boolean"
            }
          },
          {
            "name": "record",
            "in": "query",
            "required": false,
            "schema": {
              "type": "boolean"
            }
          }
        ]
      }
    },
    "/api/verification": {
      "get": {
        "operationId": "libraryVerification",
        "summary": "The library's last background check (carryon serve --verify-daily or --verify-every): every asset's bundle verified at the least CPU and disk priority, the damaged ones' reports; last is null when the library was never checked, everySeconds and nextAt null when this daemon does not check it",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/VerificationState"
                }
              }
            }
          }
        }
      }
    },
    "/api/assets/{id}/policy": {
      "put": {
        "operationId": "changePolicy",
        "summary": "Change its expiry and priority, as carryon policy does",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Asset"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "413": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PolicyChange"
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ]
      }
    },
    "/api/streams": {
      "get": {
        "operationId": "inspectStream",
        "summary": "What carryon inspect --sizes --json reports of a stream (url, or a catalog stream's name), a media playlist's segments left out: its tracks and their sizes, and under choices the same in every format's words, to choose what to download",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StreamReport"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          },
          "422": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "url",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "catalog",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/api/assets/{id}/logs": {
      "get": {
        "operationId": "assetLogs",
        "summary": "Its access and error logs, as carryon logs ID --json gives them: the newest limit entries of each (1000 by default, at most 10000) after the newest offset, oldest first, with each log's total",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "access": {
                      "type": "array",
                      "items": {
                        "type": "object",
                        "additionalProperties": {
                          "type": "string"
                        }
                      }
                    },
                    "error": {
                      "type": "array",
                      "items": {
                        "type": "object",
                        "additionalProperties": {
                          "type": "string"
                        }
                      }
                    },
                    "total": {
                      "type": "object",
                      "additionalProperties": {
                        "type": "integer"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 10000
            }
          },
          {
            "name": "offset",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 2147483647
            }
          }
        ]
      }
    },
    "/api/fleet": {
      "get": {
        "operationId": "fleet",
        "summary": "The fleet's workers alive now (carryon worker, carryon serve --worker), on this machine or another sharing the library's index, the longest-running first: who would run a download queued with fleet=true. An empty list: such a download waits until a worker starts",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/FleetState"
                }
              }
            }
          }
        }
      }
    },
    "/api/catalog": {
      "get": {
        "operationId": "catalog",
        "summary": "The catalog's streams with their offline state (none without serve --catalog)",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/CatalogStream"
                  }
                }
              }
            }
          }
        }
      }
    },
    "/api/storage": {
      "get": {
        "operationId": "storage",
        "summary": "The storage settings and use, as carryon storage --json gives them",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StorageReport"
                }
              }
            }
          }
        }
      },
      "put": {
        "operationId": "changeStorage",
        "summary": "Change the storage settings",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StorageReport"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          },
          "413": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/StorageChange"
              }
            }
          }
        }
      }
    },
    "/api/purge": {
      "post": {
        "operationId": "purge",
        "summary": "Purge by the storage rules, as carryon purge does; with dryRun=true only say what would go",
        "responses": {
          "200": {
            "description": "The plan (carried out unless a dry run)",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "removals",
                    "kept"
                  ],
                  "properties": {
                    "removals": {
                      "type": "array"
                    },
                    "kept": {
                      "type": "array"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "403": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "dryRun",
            "in": "query",
            "required": false,
            "schema": {
              "type": "boolean"
            }
          }
        ]
      }
    },
    "/api/events": {
      "get": {
        "operationId": "events",
        "summary": "Server-Sent Events: every task's events (id: N, event: KIND, data: the JSON object download --json prints); Last-Event-ID replays what a reconnecting client missed",
        "responses": {
          "200": {
            "description": "An event stream that does not end",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "Last-Event-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          }
        ]
      }
    },
    "/api/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "parameters": {
      "id": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "An asset's id, or a unique prefix of it",
        "schema": {
          "type": "string"
        }
      }
    },
    "responses": {
      "Error": {
        "description": "What was wrong",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "description": "bad-request, url-refused, foreign-origin, not-found, unknown-asset, unknown-stream, method-not-allowed, invalid-state, busy, too-large, selection, …"
              },
              "message": {
                "type": "string"
              },
              "hint": {
                "type": "string"
              }
            }
          }
        }
      },
      "Choice": {
        "description": "all, none, auto, languages as \"en,de\", or an array of languages",
        "oneOf": [
          {
            "type": "string"
          },
          {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        ]
      },
      "NewDownload": {
        "type": "object",
        "description": "url, or catalog (a catalog stream's name), not both",
        "properties": {
          "url": {
            "type": "string"
          },
          "catalog": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "audio": {
            "$ref": "#/components/schemas/Choice"
          },
          "subtitles": {
            "$ref": "#/components/schemas/Choice"
          },
          "minBitrate": {
            "type": "integer"
          },
          "maxBitrate": {
            "type": "integer"
          },
          "minResolution": {
            "type": "string",
            "pattern": "^[0-9]+x[0-9]+$"
          },
          "maxResolution": {
            "type": "string",
            "pattern": "^[0-9]+x[0-9]+$"
          },
          "limitRate": {
            "type": "integer",
            "minimum": 1,
            "description": "the most bytes a second the download takes, over all its connections; kept with it"
          },
          "fleet": {
            "type": "boolean",
            "description": "true: queued for the fleet's workers (carryon worker, serve --worker on any machine) instead of started in this process; it answers waiting"
          },
          "start": {
            "type": "number",
            "minimum": 0,
            "description": "only the part of the stream from this many seconds on: the first segment is the one that contains it; of a live stream, from this many seconds into its window"
          },
          "end": {
            "type": "number",
            "description": "only the part before this many seconds (not with duration)"
          },
          "duration": {
            "type": "number",
            "description": "only this many seconds from start (not with end); of a live stream, this many seconds recorded"
          },
          "fromStart": {
            "type": "boolean",
            "description": "for a live stream: record from the oldest segment its window holds, not from the live edge"
          },
          "keys": {
            "type": "array",
            "items": {
              "type": "string",
              "pattern": "^(0x)?[0-9A-Fa-f-]{32,36}:(0x)?[0-9A-Fa-f]{32}$"
            },
            "description": "content keys the caller holds for a common-encryption stream, KID:KEY in hexadecimal: each used for the stream's key with that KID and checked against its first samples before any media (a KID the stream does not use, or a wrong key, fails it: 422); sealed at rest, never answered back"
          },
          "licenseURL": {
            "type": "string",
            "description": "a W3C Clear Key licence server for the stream's DASH keys when its MPD names none; kept with the asset"
          }
        }
      },
      "NewSelections": {
        "type": "object",
        "properties": {
          "audio": {
            "$ref": "#/components/schemas/Choice"
          },
          "subtitles": {
            "$ref": "#/components/schemas/Choice"
          },
          "minBitrate": {
            "type": "integer"
          },
          "maxBitrate": {
            "type": "integer"
          },
          "minResolution": {
            "type": "string"
          },
          "maxResolution": {
            "type": "string"
          },
          "start": {
            "type": "number",
            "minimum": 0,
            "description": "a download of part of the stream grows to the smallest part that holds it and this one, from start"
          },
          "end": {
            "type": "number",
            "description": "to end (not with duration)"
          },
          "duration": {
            "type": "number",
            "description": "for duration seconds from start (not with end)"
          }
        }
      },
      "Asset": {
        "type": "object",
        "description": "An asset as carryon show --json gives it",
        "required": [
          "id",
          "name",
          "url",
          "state",
          "format",
          "bundlePath",
          "bytesOnDisk",
          "progress"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "url": {
            "type": "string"
          },
          "state": {
            "enum": [
              "waiting",
              "running",
              "suspended",
              "completed",
              "failed",
              "cancelled"
            ]
          },
          "error": {
            "type": "string"
          },
          "format": {
            "enum": [
              "hls",
              "dash"
            ]
          },
          "bundlePath": {
            "type": "string"
          },
          "playlist": {
            "type": "string"
          },
          "mpd": {
            "type": "string"
          },
          "bytesOnDisk": {
            "type": "integer"
          },
          "progress": {
            "type": "object"
          },
          "selection": {
            "type": "object"
          },
          "duration": {
            "type": "number"
          },
          "problems": {
            "type": "array",
            "items": {
              "type": "string"
            },
            "description": "values the index holds for the asset but cannot read, each with what it counts as meanwhile; absent when there are none"
          },
          "worker": {
            "type": "string",
            "description": "the process downloading it now, here or on another machine of the fleet: its name, process id and host; absent while none runs it"
          },
          "timeRange": {
            "type": "object",
            "required": [
              "start"
            ],
            "description": "the part of the stream downloaded, in seconds from its start (the segments that cover it); absent: all of it",
            "properties": {
              "start": {
                "type": "number"
              },
              "end": {
                "type": "number"
              }
            }
          },
          "live": {
            "type": "object",
            "required": [
              "fromStart"
            ],
            "description": "a recording of a live stream: where it started, and the segments it missed (kept as EXT-X-GAP); absent for any other download",
            "properties": {
              "fromStart": {
                "type": "boolean"
              },
              "missedSegments": {
                "type": "integer"
              },
              "missedSeconds": {
                "type": "number"
              }
            }
          }
        }
      },
      "Verified": {
        "type": "object",
        "required": [
          "report",
          "repairing",
          "asset"
        ],
        "properties": {
          "report": {
            "$ref": "#/components/schemas/VerificationReport"
          },
          "repairing": {
            "type": "boolean",
            "description": "a repair of the damage started"
          },
          "asset": {
            "$ref": "#/components/schemas/Asset"
          }
        }
      },
      "FleetState": {
        "type": "object",
        "required": [
          "workers"
        ],
        "properties": {
          "workers": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name",
                "host",
                "pid",
                "since",
                "running",
                "earlierRelease",
                "description"
              ],
              "properties": {
                "name": {
                  "type": [
                    "string",
                    "null"
                  ],
                  "description": "what it calls itself (carryon worker --name, else its command)"
                },
                "host": {
                  "type": "string"
                },
                "pid": {
                  "type": "integer"
                },
                "since": {
                  "type": "string",
                  "format": "date-time",
                  "description": "when it first wrote to the index"
                },
                "running": {
                  "type": "integer",
                  "description": "downloads it runs now"
                },
                "earlierRelease": {
                  "type": "boolean",
                  "description": "a process of an earlier release, which does not say whether it works for the fleet: it may"
                },
                "description": {
                  "type": "string",
                  "description": "how a listing's worker names it: name (pid P on host)"
                }
              }
            }
          }
        }
      },
      "VerificationState": {
        "type": "object",
        "required": [
          "last",
          "everySeconds",
          "nextAt"
        ],
        "properties": {
          "last": {
            "oneOf": [
              {
                "$ref": "#/components/schemas/LibraryVerification"
              },
              {
                "type": "null"
              }
            ]
          },
          "everySeconds": {
            "type": [
              "integer",
              "null"
            ],
            "description": "seconds between checks; null without a schedule"
          },
          "nextAt": {
            "type": [
              "string",
              "null"
            ],
            "format": "date-time",
            "description": "when the next check is due"
          }
        }
      },
      "LibraryVerification": {
        "type": "object",
        "required": [
          "startedAt",
          "finishedAt",
          "assets",
          "resources",
          "files",
          "bytes",
          "damaged",
          "failures"
        ],
        "properties": {
          "startedAt": {
            "type": "string",
            "format": "date-time"
          },
          "finishedAt": {
            "type": "string",
            "format": "date-time"
          },
          "assets": {
            "type": "integer",
            "description": "assets checked"
          },
          "resources": {
            "type": "integer"
          },
          "files": {
            "type": "integer"
          },
          "bytes": {
            "type": "integer",
            "description": "bytes read"
          },
          "damaged": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/VerificationReport"
            },
            "description": "the report of each asset with damage"
          },
          "failures": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            },
            "description": "assets that could not be checked, by id, with why"
          }
        }
      },
      "VerificationReport": {
        "type": "object",
        "required": [
          "id",
          "name",
          "resources",
          "files",
          "bytes",
          "hashed",
          "recorded",
          "seconds",
          "damage",
          "manifests",
          "manifestsChecked"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "resources": {
            "type": "integer",
            "description": "resources on disk checked"
          },
          "files": {
            "type": "integer"
          },
          "bytes": {
            "type": "integer",
            "description": "bytes read"
          },
          "hashed": {
            "type": "integer",
            "description": "resources checked against a recorded SHA-256; the others by length and structure"
          },
          "recorded": {
            "type": "integer",
            "description": "digests recorded by this check"
          },
          "seconds": {
            "type": "number"
          },
          "damage": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Damage"
            }
          },
          "manifests": {
            "type": "array",
            "description": "damaged manifests: main.m3u8, a rendition's playlist, main.mpd, manifest.json",
            "items": {
              "$ref": "#/components/schemas/ManifestDamage"
            }
          },
          "manifestsChecked": {
            "type": "boolean",
            "description": "false while the asset downloads or records, and before its playlists were first read"
          }
        }
      },
      "ManifestDamage": {
        "type": "object",
        "required": [
          "file",
          "message"
        ],
        "properties": {
          "file": {
            "type": "string",
            "description": "the manifest's path in the bundle"
          },
          "message": {
            "type": "string"
          }
        }
      },
      "Damage": {
        "type": "object",
        "required": [
          "kind",
          "file",
          "rendition",
          "uri",
          "message",
          "resource"
        ],
        "properties": {
          "kind": {
            "enum": [
              "missing",
              "truncated",
              "altered",
              "structure"
            ]
          },
          "file": {
            "type": "string"
          },
          "rendition": {
            "type": "string"
          },
          "uri": {
            "type": "string"
          },
          "offset": {
            "type": "integer"
          },
          "length": {
            "type": "integer"
          },
          "message": {
            "type": "string"
          },
          "resource": {
            "type": "integer"
          }
        }
      },
      "PolicyChange": {
        "type": "object",
        "description": "an absent key leaves the setting as it is",
        "properties": {
          "expiresAt": {
            "type": [
              "string",
              "null"
            ],
            "description": "ISO 8601 date and time that exists, at the latest 9999-12-31T23:59:59Z; null: never"
          },
          "priority": {
            "enum": [
              "default",
              "important"
            ]
          }
        }
      },
      "StreamReport": {
        "type": "object",
        "required": [
          "type",
          "url",
          "choices"
        ],
        "description": "HLS (type multivariant or media: variants, renditions, each with its size), MPEG-DASH (type dash: periods, their adaptationSets and representations, each with its size) or another format (type its name: periods of variants and renditions), as carryon inspect --sizes --json gives it; and choices, the same in every format's words",
        "properties": {
          "type": {
            "type": "string",
            "description": "multivariant, media, dash, or another format's name"
          },
          "url": {
            "type": "string"
          },
          "variants": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "renditions": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "periods": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "duration": {
            "type": "number"
          },
          "segmentCount": {
            "type": "integer"
          },
          "size": {
            "type": "object"
          },
          "warnings": {
            "type": "array"
          },
          "choices": {
            "$ref": "#/components/schemas/StreamChoices"
          }
        }
      },
      "StreamChoices": {
        "type": "object",
        "required": [
          "variants",
          "audio",
          "subtitles"
        ],
        "description": "What to choose between, in the same words for every format: video variants best first, one audio and one subtitle track per language",
        "properties": {
          "variants": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "bandwidth": {
                  "type": "integer"
                },
                "resolution": {
                  "type": "string"
                },
                "codecs": {
                  "type": "string"
                },
                "size": {
                  "$ref": "#/components/schemas/ChoiceSize"
                }
              }
            }
          },
          "audio": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/ChoiceTrack"
            }
          },
          "subtitles": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/ChoiceTrack"
            }
          },
          "size": {
            "$ref": "#/components/schemas/ChoiceSize"
          }
        }
      },
      "ChoiceTrack": {
        "type": "object",
        "required": [
          "language",
          "isDefault"
        ],
        "properties": {
          "language": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "isDefault": {
            "type": "boolean"
          },
          "size": {
            "$ref": "#/components/schemas/ChoiceSize"
          }
        }
      },
      "ChoiceSize": {
        "type": "object",
        "required": [
          "bytes",
          "exact"
        ],
        "properties": {
          "bytes": {
            "type": "integer"
          },
          "exact": {
            "type": "boolean"
          }
        }
      },
      "CatalogStream": {
        "type": "object",
        "required": [
          "name",
          "url",
          "state",
          "playableOffline"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "url": {
            "type": "string"
          },
          "state": {
            "type": "string"
          },
          "id": {
            "type": "string"
          },
          "fraction": {
            "type": "number"
          },
          "bytesOnDisk": {
            "type": "integer"
          },
          "playableOffline": {
            "type": "boolean"
          }
        }
      },
      "StorageReport": {
        "type": "object",
        "required": [
          "settings",
          "libraryBytes",
          "freeBytes"
        ],
        "properties": {
          "settings": {
            "type": "object",
            "properties": {
              "quotaBytes": {
                "type": "integer"
              },
              "minimumFreeBytes": {
                "type": "integer"
              },
              "purgeOnDownload": {
                "type": "boolean"
              }
            }
          },
          "libraryBytes": {
            "type": "integer"
          },
          "freeBytes": {
            "type": "integer"
          }
        }
      },
      "StorageChange": {
        "type": "object",
        "description": "null removes a quota or reserve; an absent key leaves it",
        "properties": {
          "quotaBytes": {
            "type": [
              "integer",
              "null"
            ],
            "minimum": 0
          },
          "minimumFreeBytes": {
            "type": [
              "integer",
              "null"
            ],
            "minimum": 0
          },
          "purgeOnDownload": {
            "type": "boolean"
          }
        }
      }
    }
  }
}
"""#
}
