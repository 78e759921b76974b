//! The service description served at `…/xfccbasic.asmx?WSDL`: document/literal SOAP 1.1 in the
//! form ASP.NET writes for an .asmx service (strings `minOccurs="0"`, numbers and booleans
//! required), the namespace, operations, SOAPAction values and `XfccGame` elements of XfccBasic
//! (docs/xfcc.md). The answers of [`super::soap`] follow it element by element, so that a client
//! that checks answers against it (zeep) accepts them.

use super::Code;

/// The WSDL, with the endpoint `location` (the `[xfcc] url`).
pub fn wsdl(location: &str) -> String {
    let codes: String = Code::ALL
        .iter()
        .map(|c| format!("<s:enumeration value=\"{}\"/>", c.name()))
        .collect();
    let results: String = [
        "Ongoing",
        "WhiteWins",
        "BlackWins",
        "Draw",
        "WhiteWinAdjudicated",
        "BlackWinAdjudicated",
        "DrawAdjudicated",
        "WhiteDefaulted",
        "BlackDefaulted",
        "BothDefaulted",
        "Cancelled",
        "AdjudicationPending",
    ]
    .iter()
    .map(|r| format!("<s:enumeration value=\"{r}\"/>"))
    .collect();
    let string = |n: &str| {
        format!("<s:element minOccurs=\"0\" maxOccurs=\"1\" name=\"{n}\" type=\"s:string\"/>")
    };
    let int = |n: &str| {
        format!("<s:element minOccurs=\"1\" maxOccurs=\"1\" name=\"{n}\" type=\"s:int\"/>")
    };
    let boolean = |n: &str| {
        format!("<s:element minOccurs=\"1\" maxOccurs=\"1\" name=\"{n}\" type=\"s:boolean\"/>")
    };
    let game: String = [
        int("id"),
        string("white"),
        string("black"),
        string("event"),
        string("site"),
        boolean("myTurn"),
        boolean("hasWhite"),
        int("daysPlayer"),
        int("hoursPlayer"),
        int("minutesPlayer"),
        int("daysOpponent"),
        int("hoursOpponent"),
        int("minutesOpponent"),
        string("moves"),
        boolean("drawOffered"),
        "<s:element minOccurs=\"1\" maxOccurs=\"1\" name=\"result\" type=\"tns:Result\"/>".into(),
        string("message"),
        string("serverInfo"),
        string("eventDate"),
        boolean("setup"),
        string("fen"),
        string("timeControl"),
    ]
    .concat();
    let make_a_move: String = [
        string("username"),
        string("password"),
        int("gameId"),
        boolean("resign"),
        boolean("acceptDraw"),
        int("movecount"),
        string("myMove"),
        boolean("offerDraw"),
        boolean("claimDraw"),
        string("myMessage"),
    ]
    .concat();
    let login = [string("username"), string("password")].concat();
    let location = super::soap::escape(location);
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:tns="http://www.bennedik.com/webservices/XfccBasic" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="http://www.bennedik.com/webservices/XfccBasic">
  <wsdl:types>
    <s:schema elementFormDefault="qualified" targetNamespace="http://www.bennedik.com/webservices/XfccBasic">
      <s:element name="GetMyGames"><s:complexType><s:sequence>{login}</s:sequence></s:complexType></s:element>
      <s:element name="GetMyGamesResponse"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="GetMyGamesResult" type="tns:ArrayOfXfccGame"/></s:sequence></s:complexType></s:element>
      <s:complexType name="ArrayOfXfccGame"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="XfccGame" nillable="true" type="tns:XfccGame"/></s:sequence></s:complexType>
      <s:complexType name="XfccGame"><s:sequence>{game}</s:sequence></s:complexType>
      <s:simpleType name="Result"><s:restriction base="s:string">{results}</s:restriction></s:simpleType>
      <s:element name="MakeAMove"><s:complexType><s:sequence>{make_a_move}</s:sequence></s:complexType></s:element>
      <s:element name="MakeAMoveResponse"><s:complexType><s:sequence><s:element minOccurs="1" maxOccurs="1" name="MakeAMoveResult" type="tns:MakeAMoveResult"/></s:sequence></s:complexType></s:element>
      <s:simpleType name="MakeAMoveResult"><s:restriction base="s:string">{codes}</s:restriction></s:simpleType>
    </s:schema>
  </wsdl:types>
  <wsdl:message name="GetMyGamesSoapIn"><wsdl:part name="parameters" element="tns:GetMyGames"/></wsdl:message>
  <wsdl:message name="GetMyGamesSoapOut"><wsdl:part name="parameters" element="tns:GetMyGamesResponse"/></wsdl:message>
  <wsdl:message name="MakeAMoveSoapIn"><wsdl:part name="parameters" element="tns:MakeAMove"/></wsdl:message>
  <wsdl:message name="MakeAMoveSoapOut"><wsdl:part name="parameters" element="tns:MakeAMoveResponse"/></wsdl:message>
  <wsdl:portType name="XfccBasicSoap">
    <wsdl:operation name="GetMyGames"><wsdl:input message="tns:GetMyGamesSoapIn"/><wsdl:output message="tns:GetMyGamesSoapOut"/></wsdl:operation>
    <wsdl:operation name="MakeAMove"><wsdl:input message="tns:MakeAMoveSoapIn"/><wsdl:output message="tns:MakeAMoveSoapOut"/></wsdl:operation>
  </wsdl:portType>
  <wsdl:binding name="XfccBasicSoap" type="tns:XfccBasicSoap">
    <soap:binding transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="GetMyGames"><soap:operation soapAction="http://www.bennedik.com/webservices/XfccBasic/GetMyGames" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
    <wsdl:operation name="MakeAMove"><soap:operation soapAction="http://www.bennedik.com/webservices/XfccBasic/MakeAMove" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="XfccBasic">
    <wsdl:port name="XfccBasicSoap" binding="tns:XfccBasicSoap"><soap:address location="{location}"/></wsdl:port>
  </wsdl:service>
</wsdl:definitions>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wsdl_is_well_formed_and_names_every_code() {
        let w = wsdl("http://127.0.0.1:8080/xfccbasic.asmx");
        let mut r = quick_xml::Reader::from_str(&w);
        loop {
            match r.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("not well-formed: {e}"),
            }
        }
        for c in Code::ALL {
            assert!(w.contains(&format!("value=\"{}\"", c.name())));
        }
        assert!(w.contains("location=\"http://127.0.0.1:8080/xfccbasic.asmx\""));
    }
}
