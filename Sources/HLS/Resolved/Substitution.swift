// Variable substitution and URI resolution for the tag values the resolved views expose:
// quoted-strings get `{$name}` replaced, URIs are made absolute against the playlist URL.

extension StreamInf {
    func resolved(_ v: Variables, base: String) throws(TagError) -> StreamInf {
        var copy = self
        copy.codecs = try v.substitute(codecs)
        copy.supplementalCodecs = try v.substitute(supplementalCodecs)
        copy.allowedCPC = try v.substitute(allowedCPC)
        copy.requiredVideoLayout = try v.substitute(requiredVideoLayout)
        copy.stableVariantID = try v.substitute(stableVariantID)
        copy.audio = try v.substitute(audio)
        copy.video = try v.substitute(video)
        copy.subtitles = try v.substitute(subtitles)
        if case .group(let group)? = closedCaptions { copy.closedCaptions = .group(try v.substitute(group)) }
        copy.pathwayID = try v.substitute(pathwayID)
        copy.uri = try v.substitute(uri).map { URIReference.resolve($0, against: base) }
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension Rendition {
    func resolved(_ v: Variables, base: String) throws(TagError) -> Rendition {
        var copy = self
        copy.uri = try v.substitute(uri).map { URIReference.resolve($0, against: base) }
        copy.groupID = try v.substitute(groupID)
        copy.language = try v.substitute(language)
        copy.assocLanguage = try v.substitute(assocLanguage)
        copy.name = try v.substitute(name)
        copy.stableRenditionID = try v.substitute(stableRenditionID)
        copy.instreamID = try v.substitute(instreamID)
        copy.characteristics = try v.substitute(characteristics)
        copy.channels = try v.substitute(channels)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension SessionData {
    func resolved(_ v: Variables, base: String) throws(TagError) -> SessionData {
        var copy = self
        copy.dataID = try v.substitute(dataID)
        copy.value = try v.substitute(value)
        copy.uri = try v.substitute(uri).map { URIReference.resolve($0, against: base) }
        copy.language = try v.substitute(language)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension Key {
    func resolved(_ v: Variables, base: String) throws(TagError) -> Key {
        var copy = self
        copy.uri = try v.substitute(uri).map { URIReference.resolve($0, against: base) }
        copy.keyFormat = try v.substitute(keyFormat)
        copy.keyFormatVersions = try v.substitute(keyFormatVersions)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension ContentSteering {
    func resolved(_ v: Variables, base: String) throws(TagError) -> ContentSteering {
        var copy = self
        copy.serverURI = URIReference.resolve(try v.substitute(serverURI), against: base)
        copy.pathwayID = try v.substitute(pathwayID)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension DateRange {
    func resolved(_ v: Variables) throws(TagError) -> DateRange {
        var copy = self
        copy.id = try v.substitute(id)
        copy.class = try v.substitute(`class`)
        copy.cue = try v.substitute(cue)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension PreloadHint {
    func resolved(_ v: Variables, base: String) throws(TagError) -> PreloadHint {
        var copy = self
        copy.uri = URIReference.resolve(try v.substitute(uri), against: base)
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}

extension RenditionReport {
    func resolved(_ v: Variables, base: String) throws(TagError) -> RenditionReport {
        var copy = self
        copy.uri = try v.substitute(uri).map { URIReference.resolve($0, against: base) }
        copy.otherAttributes = try v.substitute(otherAttributes)
        return copy
    }
}
