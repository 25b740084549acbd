"""The base of every JSON shape papersift shows (``reading/shown.py``'s texts, ``reader/shapes.py``'s papers
and hits, ``web/models.py``'s route answers): a pydantic model that makes its JSON, one model per shape.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict


class Shape(BaseModel):
    """A JSON shape: built by ``make`` (validated, nested shapes built in the same pass), its JSON the fields
    set, in the order declared, then any extra keys in the order given (the faces may extend an object)."""

    model_config = ConfigDict(extra="allow")

    @classmethod
    def make(cls, **values: Any) -> Self:
        return cls.model_validate(values)

    def dump(self) -> dict[str, Any]:
        """The shape as JSON-ready data: keys by their JSON names, those never set left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
