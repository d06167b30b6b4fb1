"""The site's bucket (template.yaml: `SiteBucket`): the files every deploy puts there,
the ones it no longer has taken out, and all of them at the stack's deletion (a bucket
with objects in it cannot be deleted)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

DELETE_BATCH = 1000  # S3's DeleteObjects takes at most this many keys


@dataclass(frozen=True)
class SiteFile:
    """One file of the site: its bytes, `Content-Type` and `Cache-Control`."""

    body: bytes
    content_type: str
    cache_control: str


@dataclass(frozen=True)
class Published:
    """What a deploy did to the bucket."""

    put: int
    removed: int


class SiteBucket:
    """The bucket `bucket` over `client` (S3)."""

    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    def publish(self, files: Mapping[str, SiteFile]) -> Published:
        """Put every one of `files` (by key), then remove what the bucket holds besides:
        the files of an earlier deploy that this one no longer has."""
        for key, file in files.items():
            self._client.put_object(
                Bucket=self._bucket,
                Key=key,
                Body=file.body,
                ContentType=file.content_type,
                CacheControl=file.cache_control,
            )
        stale = [key for key in self._keys() if key not in files]
        self._delete(stale)
        return Published(len(files), len(stale))

    def empty(self) -> int:
        """Remove every object; how many there were."""
        keys = list(self._keys())
        self._delete(keys)
        return len(keys)

    def _keys(self) -> Iterator[str]:
        pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self._bucket)
        for page in pages:
            yield from (item["Key"] for item in page.get("Contents", ()))

    def _delete(self, keys: list[str]) -> None:
        for start in range(0, len(keys), DELETE_BATCH):
            batch = [{"Key": key} for key in keys[start : start + DELETE_BATCH]]
            self._client.delete_objects(Bucket=self._bucket, Delete={"Objects": batch})
