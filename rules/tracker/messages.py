"""What the tracker tells people about irregularities, in Portuguese (the seeds' language)
and English. One entry per finding: its article of seed 000 and the two texts.

Templates take `side_pt`/`side_en` (who broke the rule), `squares` (a list such as
"27, 32"), and the extra fields each finding fills in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    article: str
    pt: str
    en: str


TEXTS: dict[str, Text] = {
    "light-square": Text(
        "5.3",
        "Peça numa casa clara ({light}): está inativa e deve voltar ao jogo (art. 5.3).",
        "A piece stands on a light square ({light}): it is out of play and must be put "
        "back (art. 5.3)."),
    "two-moves": Text(
        "5.4.01",
        "As {side_pt} jogaram dois lances seguidos ({moves}).",
        "{side_en} played two moves in a row ({moves})."),
    "illegal-move": Text(
        "5.4.02",
        "Movimento irregular de pedra ou dama: nenhuma regra permite esta jogada "
        "(casas {squares}).",
        "Irregular move of a man or king: no rule allows it (squares {squares})."),
    "false-crown": Text(
        "5.4.02",
        "Coroa sobre uma pedra que não foi promovida (casas {squares}).",
        "A crown on a man that was not promoted (squares {squares})."),
    "take-back": Text(
        "5.4.04",
        "O lance {move} foi voltado atrás.",
        "The move {move} was taken back."),
    "changed-move": Text(
        "5.4.04",
        "O lance {move} foi voltado atrás e trocado por {other}.",
        "The move {move} was taken back and replaced by {other}."),
    "opponent-piece": Text(
        "5.4.05",
        "As {side_pt} jogaram uma peça do adversário (casas {squares}).",
        "{side_en} moved an opponent's piece (squares {squares})."),
    "capture-missed": Text(
        "5.4.06",
        "A captura é obrigatória: jogou {move} quando podia capturar ({legal}).",
        "Capture is compulsory: {move} was played while a capture was possible ({legal})."),
    "removed": Text(
        "5.4.07",
        "Peças retiradas do tabuleiro sem razão (casas {squares}).",
        "Pieces removed from the board without reason (squares {squares})."),
    "too-few": Text(
        "5.4.08",
        "Tomou {taken} peça(s), mas a regra manda tomar {required} ({legal}).",
        "Took {taken} piece(s) where the rule demands {required} ({legal})."),
    "too-many": Text(
        "5.4.08",
        "Tomou {taken} peças, mais do que a regra permite ({allowed}).",
        "Took {taken} pieces, more than the rule allows ({allowed})."),
    "stopped-chain": Text(
        "5.4.09",
        "A tomada em cadeia parou na casa {at} antes do fim ({legal}).",
        "The chain capture stopped on {at} before its end ({legal})."),
    "removed-early": Text(
        "5.4.10",
        "Peças tomadas retiradas antes do fim da tomada (casas {removed}).",
        "Captured pieces removed before the capture ended (squares {removed})."),
    "left-on-board": Text(
        "5.4.11",
        "Depois da captura, retiradas menos peças do que as tomadas: faltam {left}.",
        "After the capture, fewer pieces were removed than taken: {left} still on the "
        "board."),
    "wrong-removed": Text(
        "5.4.12",
        "Retiradas peças que não foram tomadas (casas {wrong}).",
        "Pieces that were not captured were removed (squares {wrong})."),
    "removal-stopped": Text(
        "5.4.13",
        "A retirada das peças tomadas parou: faltam {left}.",
        "The removal of the captured pieces stopped: {left} still on the board."),
    "own-removed": Text(
        "5.4.14",
        "Depois da captura foram retiradas peças próprias (casas {own}).",
        "Own pieces were removed after the capture (squares {own})."),
}

SIDE_PT = ("brancas", "pretas")
SIDE_EN = ("White", "Black")


def squares_text(squares) -> str:
    return ", ".join(str(s) for s in squares) if squares else "-"


def render(finding: str, offender: int, squares, **extra) -> tuple[str, str, str]:
    """(article, Portuguese, English) of a finding."""
    text = TEXTS[finding]
    values = {"side_pt": SIDE_PT[offender], "side_en": SIDE_EN[offender],
              "squares": squares_text(squares)}
    for name, value in extra.items():
        values[name] = squares_text(value) if isinstance(value, (tuple, list)) else value
    return text.article, text.pt.format(**values), text.en.format(**values)
