"""The base of every JSON shape papersift shows (``reading/shown.py``'s texts, ``library/shapes.py``'s papers
and hits, ``web/models.py``'s route answers): a pydantic model that makes its JSON, one model per shape.
``Said``: a text field that keeps a ``records.messages.Message`` as it is (its JSON the English text; a
page's data the message, which the web says in the page's language), in a shape or any shape nested in it.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Self, get_args

from pydantic import BaseModel, ConfigDict, PlainValidator, WithJsonSchema
from pydantic.fields import FieldInfo


def _text(value: Any) -> str:
    """A text as it is (a Message stays one)."""
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    return value


Said = Annotated[str, PlainValidator(_text), WithJsonSchema({"type": "string"})]


def _said(field: FieldInfo) -> bool:
    """Whether a field is a ``Said`` (pydantic keeps an Annotated field's validators as its metadata)."""
    return any(getattr(m, "func", None) is _text for m in field.metadata)


class Shape(BaseModel):
    """A JSON shape: built by ``make`` (validated, nested shapes built in the same pass; a field whose JSON
    name is not a Python name, ``Field(alias=…)``, given by either), its JSON the fields set, in the order
    declared, by their JSON names, then any extra keys in the order given (the faces may extend an
    object)."""

    model_config = ConfigDict(extra="allow", validate_by_name=True)
    said: ClassVar[tuple[str, ...]] = ()  # its fields of Said or list[Said] (read off the annotations, once)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.said = tuple(n for n, f in cls.model_fields.items() if Said in get_args(f.annotation) or _said(f))

    @classmethod
    def make(cls, **values: Any) -> Self:
        return cls.model_validate(values)

    @classmethod
    def data_of(cls, source: object, **given: Any) -> dict[str, Any]:
        """The shape's fields as ``source``'s attributes of the same names, but those ``given``."""
        return {name: getattr(source, name) for name in cls.model_fields if name not in given} | given

    @classmethod
    def made_of(cls, source: object, **given: Any) -> Self:
        """The shape of ``source`` (``data_of``)."""
        return cls.model_validate(cls.data_of(source, **given))

    def dump(self) -> dict[str, Any]:
        """The shape as JSON-ready data: keys by their JSON names, those never set left out."""
        data = self.model_dump(mode="json", by_alias=True, exclude_unset=True)
        self._keep_said(data)
        return data

    def _keep_said(self, data: dict[str, Any]) -> None:
        """``data`` (this shape's JSON) given back the messages of its ``said`` fields and of the shapes in it
        (the same English text, still knowing its message)."""
        for name, field in type(self).model_fields.items():
            key = field.alias or name
            if key not in data:
                continue
            value = getattr(self, name)
            if name in self.said:
                data[key] = list(value) if isinstance(value, list) else value
            elif isinstance(value, Shape):
                value._keep_said(data[key])
            elif isinstance(value, list):
                for item, item_data in zip(value, data[key], strict=True):
                    if isinstance(item, Shape):
                        item._keep_said(item_data)
