{
  "targets": [
    {
      "target_name": "crc32c",
      "sources": ["src/crc32c.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_c": ["-O3", "-std=c11"]
    }
  ]
}
