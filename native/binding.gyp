{
  "targets": [
    {
      "target_name": "kafkalite_native",
      "sources": ["src/addon.c", "src/args.c", "src/crc32c.c", "src/records.c", "src/pagecache.c", "src/dirlock.c", "src/mapped.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_c": ["-O3", "-std=c11", "-Wall", "-Wextra"]
    }
  ]
}
