"""A program's input and output through files instead of its standard streams."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

FileName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")]


class FileIO(BaseModel):
    """A program that reads its input from a file and writes its answer to one (Codeforces'
    and CodeContests' ``input.txt``/``output.txt`` problems, open-r1's ``input_mode: file``):
    the test's input is also put in the working directory as ``input_file``, and the answer
    judged is what the program left in ``output_file`` (its standard output is then not
    judged)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    input_file: FileName | None = None
    output_file: FileName | None = None


__all__ = ["FileIO", "FileName"]
