"""Text helpers shared by every layer that reads words: the store's full-text queries, the lexical index,
the rankers' explanations and the web's highlighting all drop the same stop words.
"""

from __future__ import annotations

STOP_WORDS = frozenset(  # English function words: no evidence of topic
    """a about above after again against all almost along already also although always am among an and
    another any are around as at be became because become been before being below between both but by
    can cannot could de did do does done down due during each eg either else et etc even ever every for
    from further get give had has have he hence her here hers him his how however i ie if in into is it
    its itself just least less may me might more most much must my neither no nor not now of off often
    on once one only onto or other others otherwise our ours out over own per perhaps rather same see
    seem seems several she should since so some still such than that the their them then there thereby
    therefore these they this those though through thus to together too under until up upon us very via
    was we well were what when where whereas whether which while who whom whose why will with within
    without would yet you your""".split()
)
